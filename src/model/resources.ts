/**
 * The five record resources, each written once: its journal kind, what its snapshot holds, its
 * write contracts, its presenter and the names the API gives it. The batch route and an import's
 * chunk write through it (one write path), the keyed writes of the single routes take it, every
 * route of a resource (its CRUD, trash, batch, export and history) is named from it, and the
 * journal shows each entry through its presenter (model/events.ts). A sixth resource is one entry.
 */
import { Company, CompanyCreate, CompanyUpdate } from '../contracts/companies';
import { Contact, ContactCreate, ContactUpdate } from '../contracts/contacts';
import { Deal, DealCreate, DealUpdate } from '../contracts/deals';
import { Task, TaskCreate, TaskUpdate } from '../contracts/tasks';
import { User, UserCreate, UserUpdate } from '../contracts/users';
import type { JournalRecordType } from '../db/schema';
import { companySpec, presentCompany } from './companies';
import { contactSpec, presentContact } from './contacts';
import { dealSpec, presentDeal } from './deals';
import { presentTask, taskSpec } from './tasks';
import { presentUser, userSpec } from './users';

export const resources = {
  users: {
    kind: 'user',
    spec: userSpec,
    create: UserCreate,
    update: UserUpdate,
    schema: User,
    present: presentUser,
    names: { tag: 'Users', one: 'user', plural: 'Users', schema: 'User', scope: 'users' },
  },
  companies: {
    kind: 'company',
    spec: companySpec,
    create: CompanyCreate,
    update: CompanyUpdate,
    schema: Company,
    present: presentCompany,
    names: { tag: 'Companies', one: 'company', plural: 'Companies', schema: 'Company', scope: 'companies' },
    /** Fields that follow other records (their counts): never a change of the company itself. */
    derived: ['deal_count', 'lead_count'],
  },
  contacts: {
    kind: 'contact',
    spec: contactSpec,
    create: ContactCreate,
    update: ContactUpdate,
    schema: Contact,
    present: presentContact,
    names: { tag: 'Contacts', one: 'contact', plural: 'Contacts', schema: 'Contact', scope: 'contacts' },
  },
  deals: {
    kind: 'deal',
    spec: dealSpec,
    create: DealCreate,
    update: DealUpdate,
    schema: Deal,
    present: presentDeal,
    names: { tag: 'Deals', one: 'deal', plural: 'Deals', schema: 'Deal', scope: 'deals' },
  },
  tasks: {
    kind: 'task',
    spec: taskSpec,
    create: TaskCreate,
    update: TaskUpdate,
    schema: Task,
    present: presentTask,
    names: { tag: 'Tasks', one: 'task', plural: 'Tasks', schema: 'Task', scope: 'tasks' },
  },
} as const;

type Resource = (typeof resources)[keyof typeof resources];

/** Each resource by the journal's name for its type (`company`): a history's route, an entry's presenter. */
export const resourceByKind = (() => {
  const out = {} as Record<JournalRecordType, Resource>;
  for (const resource of Object.values(resources)) out[resource.kind] = resource;
  return out;
})();
