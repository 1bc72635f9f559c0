import type { ToolAnnotations } from '@modelcontextprotocol/server';

/**
 * One MCP tool: a `/v1` operation named by its `operationId` in the OpenAPI document, where its
 * path, parameters, body schema and field descriptions come from (src/mcp/operations.ts), so a
 * filter or field added to `/v1` appears in the tool without a line here. What is written here is
 * only what an assistant needs beyond the document: a name, one line to choose the tool by, its
 * hints, and the arguments a tool fixes.
 */
export type ToolSpec = {
  name: string;
  description: string;
  /** The operation, or one per kind of record (get_record, create_record). */
  operation: string | Readonly<Record<string, string>>;
  /**
   * How a tool over several operations is told which one: by a `resource` argument when their
   * inputs are the same (get_record), or by the record's fields under its kind's name when they
   * differ (`{ "deal": { … } }`: create_record), so each kind keeps its precise schema without a
   * top-level `oneOf` (which Anthropic's and OpenAI's tool APIs refuse).
   */
  choice?: 'resource' | 'nested';
  annotations: ToolAnnotations;
  /** Query values the tool sets itself (they leave its input). */
  fixedQuery?: Readonly<Record<string, string>>;
  /** What the path's `id` names, when the document does not say. */
  idNote?: string;
  /** The record's noun for the text summary (`company 12`), and its plural (`3 companies`). */
  noun: string;
  plural: string;
};

const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
// A create makes a new record each time unless the call carries an idempotency_key.
const CREATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
// An update overwrites the fields it sends (destructive in the spec's sense); sending it again
// changes nothing more.
const UPDATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

const LIST_NOTE = 'by filters (combined with AND), sort and cursor (meta.next_cursor)';

/** The resources an assistant works on, by the noun a tool name uses and their operations' names. */
const RESOURCES = [
  {
    noun: 'company',
    plural: 'companies',
    op: 'Company',
    ops: 'Companies',
    what: 'Brazilian legal entities, one per CNPJ',
  },
  {
    noun: 'contact',
    plural: 'contacts',
    op: 'Contact',
    ops: 'Contacts',
    what: 'people (leads), optionally at a company',
  },
  { noun: 'deal', plural: 'deals', op: 'Deal', ops: 'Deals', what: 'opportunities: open, won or lost' },
  { noun: 'task', plural: 'tasks', op: 'Task', ops: 'Tasks', what: 'to-dos on a deal' },
] as const;

const lists: ToolSpec[] = [
  ...RESOURCES.map((r) => ({
    name: `list_${r.plural}`,
    description: `Search and list the account's ${r.plural} (${r.what}) ${LIST_NOTE}.`,
    operation: `list${r.ops}`,
    annotations: READ,
    noun: r.noun,
    plural: r.plural,
  })),
  {
    name: 'list_users',
    description: `List the account's users, the salespeople whose ids go in owner_id, ${LIST_NOTE}.`,
    operation: 'listUsers',
    annotations: READ,
    noun: 'user',
    plural: 'users',
  },
  {
    name: 'list_webhooks',
    description: `List the account's inbound webhooks (URLs that turn posted JSON into records) ${LIST_NOTE}.`,
    operation: 'listInboundWebhooks',
    annotations: READ,
    noun: 'webhook',
    plural: 'webhooks',
  },
];

const get: ToolSpec = {
  name: 'get_record',
  description: 'Get one record by its id: a company, contact, deal, task, user or inbound webhook.',
  operation: {
    company: 'getCompany',
    contact: 'getContact',
    deal: 'getDeal',
    task: 'getTask',
    user: 'getUser',
    webhook: 'getInboundWebhook',
  },
  annotations: READ,
  noun: 'record',
  plural: 'records',
};

/** The kinds of record the change journal keeps, by their history operations. */
const HISTORIES = {
  company: 'getCompanyHistory',
  contact: 'getContactHistory',
  deal: 'getDealHistory',
  task: 'getTaskHistory',
  user: 'getUserHistory',
} as const;

const history: ToolSpec = {
  name: 'get_record_history',
  description:
    "One record's change history, oldest first: what changed, from what, and who changed it (30 days kept).",
  operation: HISTORIES,
  idNote: "The record's id (it may be in the trash or erased)",
  annotations: READ,
  noun: 'change',
  plural: 'changes',
};

const feed: ToolSpec = {
  name: 'list_changes',
  description:
    "The account's change feed: every change to companies, contacts, deals, tasks and users, newest first, by type, record and time.",
  operation: 'listEvents',
  annotations: READ,
  noun: 'change',
  plural: 'changes',
};

const failedEvents: ToolSpec = {
  name: 'list_webhook_failed_events',
  description:
    "A webhook's recent failed events, newest first, each with its error (why it failed) and attempts.",
  operation: 'listInboundWebhookEvents',
  fixedQuery: { status: 'failed' },
  idNote: "The webhook's id (list_webhooks)",
  annotations: READ,
  noun: 'failed event',
  plural: 'failed events',
};

/** The operations of each kind a tool writes, by the kind's noun: `create${op}` or `update${op}`. */
const writesOf = (verb: 'create' | 'update') =>
  Object.fromEntries(RESOURCES.map((r) => [r.noun, `${verb}${r.op}`]));

const create: ToolSpec = {
  name: 'create_record',
  description:
    'Create a company, contact, deal or task: its fields under its kind, e.g. {"deal": {"name": …}}; idempotency_key makes a retry safe.',
  operation: writesOf('create'),
  choice: 'nested',
  annotations: CREATE,
  noun: 'record',
  plural: 'records',
};

const update: ToolSpec = {
  name: 'update_record',
  description:
    'Update a company, contact, deal or task by id: only the fields sent change, null clears one; {"task": {"is_completed": true}} completes a task.',
  operation: writesOf('update'),
  choice: 'nested',
  idNote: 'The id of the record to update, of the kind whose fields are given',
  annotations: UPDATE,
  noun: 'record',
  plural: 'records',
};

/** Every tool, in the order tools/list gives them: reads first. */
export const TOOLS: readonly ToolSpec[] = [...lists, get, history, feed, failedEvents, create, update];
