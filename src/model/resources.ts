/**
 * The five record resources, each written once: its journal kind, what its snapshot holds, its
 * write contracts, its presenter and the names the API gives it. The batch route and an import's
 * chunk write through it (one write path), the keyed writes of the single routes take it, and the
 * journal shows each entry through its presenter (model/events.ts). A sixth resource is one entry.
 */
import { Company, CompanyCreate, CompanyUpdate } from '../contracts/companies';
import { Contact, ContactCreate, ContactUpdate } from '../contracts/contacts';
import { Deal, DealCreate, DealUpdate } from '../contracts/deals';
import { Task, TaskCreate, TaskUpdate } from '../contracts/tasks';
import { User, UserCreate, UserUpdate } from '../contracts/users';
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
    names: { tag: 'Users', plural: 'Users', schema: 'User', scope: 'users' },
  },
  companies: {
    kind: 'company',
    spec: companySpec,
    create: CompanyCreate,
    update: CompanyUpdate,
    schema: Company,
    present: presentCompany,
    names: { tag: 'Companies', plural: 'Companies', schema: 'Company', scope: 'companies' },
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
    names: { tag: 'Contacts', plural: 'Contacts', schema: 'Contact', scope: 'contacts' },
  },
  deals: {
    kind: 'deal',
    spec: dealSpec,
    create: DealCreate,
    update: DealUpdate,
    schema: Deal,
    present: presentDeal,
    names: { tag: 'Deals', plural: 'Deals', schema: 'Deal', scope: 'deals' },
  },
  tasks: {
    kind: 'task',
    spec: taskSpec,
    create: TaskCreate,
    update: TaskUpdate,
    schema: Task,
    present: presentTask,
    names: { tag: 'Tasks', plural: 'Tasks', schema: 'Task', scope: 'tasks' },
  },
} as const;

export type ResourceName = keyof typeof resources;
