/** Each resource as a batch writes it: the batch route's and an import chunk's one write path. */
import { CompanyCreate, CompanyUpdate } from '../contracts/companies';
import { ContactCreate, ContactUpdate } from '../contracts/contacts';
import { DealCreate, DealUpdate } from '../contracts/deals';
import { TaskCreate, TaskUpdate } from '../contracts/tasks';
import { UserCreate, UserUpdate } from '../contracts/users';
import { companySpec } from './companies';
import { contactSpec } from './contacts';
import { dealSpec } from './deals';
import { taskSpec } from './tasks';
import { userSpec } from './users';

export const batchResources = {
  users: { kind: 'user', spec: userSpec, create: UserCreate, update: UserUpdate },
  companies: { kind: 'company', spec: companySpec, create: CompanyCreate, update: CompanyUpdate },
  contacts: { kind: 'contact', spec: contactSpec, create: ContactCreate, update: ContactUpdate },
  deals: { kind: 'deal', spec: dealSpec, create: DealCreate, update: DealUpdate },
  tasks: { kind: 'task', spec: taskSpec, create: TaskCreate, update: TaskUpdate },
} as const;
