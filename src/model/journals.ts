import type { PurgeJournals } from '../db/trash';
import { companySpec } from './companies';
import { contactSpec } from './contacts';
import { dealSpec } from './deals';
import { taskSpec } from './tasks';
import { userSpec } from './users';

/** Each record type's change journal: for writes made outside one resource's spec (the trash's purge). */
export const journals: PurgeJournals = {
  company: companySpec.journal,
  contact: contactSpec.journal,
  deal: dealSpec.journal,
  task: taskSpec.journal,
  user: userSpec.journal,
};
