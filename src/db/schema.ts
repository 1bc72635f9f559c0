import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  foreignKey,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import type { FieldError } from '../core/errors';
import type { Params } from '../core/said';
import {
  dealStatuses,
  deliveryStatuses,
  endpointDisabledReasons,
  eventStatuses,
  webhookModes,
} from '../core/statuses';
import type { Action, FieldMapping, Rejection } from '../webhooks/rules/config';
import type { EventMark } from '../webhooks/rules/event-history';

// Timestamps are epoch milliseconds: compact, index-friendly, and exact for keyset cursors.
const timestamps = {
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
};

/** The columns every tenant-owned table starts with. */
const owned = () => ({
  id: integer('id').primaryKey({ autoIncrement: true }),
  accountId: integer('account_id')
    .notNull()
    .references(() => accounts.id),
});

/** A display name and its normalised twin that filters and sorts run on (see core/text.ts). */
const named = () => ({
  name: text('name').notNull(),
  nameNorm: text('name_norm').notNull(),
});

/**
 * The searchable name without its accents (withoutAccents of name_norm), written with it, so a
 * `name__contains` page compares each candidate row with a stored text instead of folding it again
 * (src/db/search.ts). Triggers (drizzle/0022_search_folds.sql) set it on a write that did not.
 */
const folded = () => ({ nameFold: text('name_fold') });

/**
 * When the row went to the trash (epoch ms); null while live. Trashed rows are hidden from every
 * read and reference until restored, and purged by the cron 30 days on (src/db/trash.ts).
 */
const trashable = () => ({ deletedAt: integer('deleted_at') });

/**
 * The record's version: the `version` of its latest change journal entry (src/journal/), 0 before
 * any. Kept on the row, not counted from the entries, so the retention purge never sends it back.
 */
const versioned = () => ({ version: integer('version').notNull().default(0) });

/**
 * The record's id in the system it came from (an ERP's, a spreadsheet's): optional, unique per
 * account and resource (`<table>_external_id_uq`, so a duplicate is a 409 naming `external_id`),
 * the key a batch upsert and an import find it by (docs/import-export.md). A row in the trash keeps
 * it until purged, as a company keeps its CNPJ.
 */
const external = () => ({ externalId: text('external_id') });

/**
 * The indexes of the trash: `columns` of the trashed rows only, so a trash list walks its sort
 * without reading live rows, and they cost live writes nothing. Plus one across accounts, by
 * deletion time, for the purge.
 */
const trashIndexes = (
  name: string,
  t: { accountId: AnySQLiteColumn; id: AnySQLiteColumn; deletedAt: AnySQLiteColumn },
  sorts: Record<string, AnySQLiteColumn>,
) => {
  const trashed = sql`${t.deletedAt} is not null`;
  return [
    ...Object.entries(sorts).map(([sort, column]) =>
      index(`${name}_${sort}_trash_idx`).on(t.accountId, column, t.id).where(trashed),
    ),
    index(`${name}_purge_idx`).on(t.deletedAt).where(trashed),
  ];
};

export type CustomFields = Record<string, string | number | boolean | null>;

export const accounts = sqliteTable('accounts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  createdAt: integer('created_at').notNull(),
  // The IANA zone a date with no time stands for a day in (src/core/zones.ts): São Paulo's by default.
  timeZone: text('time_zone').notNull().default('America/Sao_Paulo'),
});

/**
 * The directory: which shard holds each account (src/db/shards.ts, docs/scaling.md). Migrations run
 * on every shard, so the table exists on each, but only shard 0's is ever read or written: it is
 * the authority for the admin API, moves and forwarding. `state` is `active`; a move's own state is
 * its `account_moves` row (src/moves/), whose switch rewrites `shard`. No foreign key: the
 * account's row is on its own shard, written before this one.
 */
export const accountShards = sqliteTable(
  'account_shards',
  {
    accountId: integer('account_id').primaryKey(),
    shard: integer('shard').notNull(),
    state: text('state', { enum: ['active'] })
      .notNull()
      .default('active'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('account_shards_shard_idx').on(t.shard)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    keyHash: text('key_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
    name: text('name'),
    /** JSON array of scopes (src/core/scopes.ts); null: full access, as keys had before scopes. */
    scopes: text('scopes', { mode: 'json' }).$type<string[]>(),
    expiresAt: integer('expires_at'),
    /** To the minute: a key used many times a minute is written at most once a minute. */
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.keyHash), index('api_keys_account_idx').on(t.accountId)],
);

// Every tenant-owned table carries a unique (account_id, id) so that references can be composite
// foreign keys: the database itself refuses a row that points into another account.
export const users = sqliteTable(
  'users',
  {
    ...owned(),
    ...named(),
    ...folded(),
    email: text('email').notNull(),
    emailNorm: text('email_norm').notNull(),
    ...external(),
    ...timestamps,
    ...trashable(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex('users_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('users_external_id_uq').on(t.accountId, t.externalId),
    // Named `<table>_<field>_uq`: a duplicate is a 409 naming `<field>` (uniqueField in db/errors.ts).
    uniqueIndex('users_email_uq').on(t.accountId, t.emailNorm),
    index('users_created_idx').on(t.accountId, t.createdAt, t.id),
    index('users_name_idx').on(t.accountId, t.nameNorm, t.id),
    ...trashIndexes('users', t, { created: t.createdAt, name: t.nameNorm }),
  ],
);

export const companies = sqliteTable(
  'companies',
  {
    ...owned(),
    ...named(),
    ...folded(),
    cnpj: text('cnpj').notNull(),
    ownerId: integer('owner_id'),
    segment: text('segment'),
    segmentNorm: text('segment_norm'),
    segmentFold: text('segment_fold'),
    observations: text('observations'),
    ...external(),
    ...timestamps,
    ...trashable(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex('companies_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('companies_external_id_uq').on(t.accountId, t.externalId),
    uniqueIndex('companies_cnpj_uq').on(t.accountId, t.cnpj),
    foreignKey({ columns: [t.accountId, t.ownerId], foreignColumns: [users.accountId, users.id] }),
    index('companies_created_idx').on(t.accountId, t.createdAt, t.id),
    index('companies_name_idx').on(t.accountId, t.nameNorm, t.id),
    index('companies_owner_idx').on(t.accountId, t.ownerId),
    index('companies_segment_idx').on(t.accountId, t.segmentNorm),
    ...trashIndexes('companies', t, { created: t.createdAt, name: t.nameNorm }),
  ],
);

/** The users who follow a company; a write replaces the whole set. */
export const companyFollowers = sqliteTable(
  'company_followers',
  {
    accountId: integer('account_id').notNull(),
    companyId: integer('company_id').notNull(),
    userId: integer('user_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.companyId, t.userId] }),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.userId], foreignColumns: [users.accountId, users.id] }),
    index('company_followers_user_idx').on(t.accountId, t.userId),
  ],
);

export const contacts = sqliteTable(
  'contacts',
  {
    ...owned(),
    ...named(),
    ...folded(),
    email: text('email'),
    emailNorm: text('email_norm'),
    phone: text('phone'),
    companyId: integer('company_id'),
    ownerId: integer('owner_id'),
    customFields: text('custom_fields', { mode: 'json' }).$type<CustomFields>().notNull().default(sql`'{}'`),
    ...external(),
    ...timestamps,
    ...trashable(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex('contacts_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('contacts_external_id_uq').on(t.accountId, t.externalId),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.ownerId], foreignColumns: [users.accountId, users.id] }),
    index('contacts_created_idx').on(t.accountId, t.createdAt, t.id),
    index('contacts_name_idx').on(t.accountId, t.nameNorm, t.id),
    index('contacts_email_idx').on(t.accountId, t.emailNorm),
    index('contacts_phone_idx').on(t.accountId, t.phone),
    // With deleted_at, counting a company's live contacts reads the index alone.
    index('contacts_company_idx').on(t.accountId, t.companyId, t.deletedAt),
    index('contacts_owner_idx').on(t.accountId, t.ownerId),
    ...trashIndexes('contacts', t, { created: t.createdAt, name: t.nameNorm }),
  ],
);

export const deals = sqliteTable(
  'deals',
  {
    ...owned(),
    ...named(),
    companyId: integer('company_id'),
    contactId: integer('contact_id'),
    ownerId: integer('owner_id'),
    status: text('status', { enum: dealStatuses }).notNull().default('open'),
    value: real('value'),
    customFields: text('custom_fields', { mode: 'json' }).$type<CustomFields>().notNull().default(sql`'{}'`),
    ...external(),
    ...timestamps,
    ...trashable(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex('deals_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('deals_external_id_uq').on(t.accountId, t.externalId),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.contactId], foreignColumns: [contacts.accountId, contacts.id] }),
    foreignKey({ columns: [t.accountId, t.ownerId], foreignColumns: [users.accountId, users.id] }),
    index('deals_created_idx').on(t.accountId, t.createdAt, t.id),
    index('deals_updated_idx').on(t.accountId, t.updatedAt, t.id),
    index('deals_name_idx').on(t.accountId, t.nameNorm, t.id),
    // With status and deleted_at, counting a company's live open deals reads the index alone.
    index('deals_company_idx').on(t.accountId, t.companyId, t.status, t.deletedAt),
    index('deals_contact_idx').on(t.accountId, t.contactId),
    index('deals_owner_idx').on(t.accountId, t.ownerId),
    index('deals_status_idx').on(t.accountId, t.status),
    ...trashIndexes('deals', t, { created: t.createdAt, updated: t.updatedAt, name: t.nameNorm }),
  ],
);

/** Task categories are created on first use by name; the first spelling is kept. */
export const taskCategories = sqliteTable(
  'task_categories',
  {
    ...owned(),
    ...named(),
    createdAt: integer('created_at').notNull(),
    // The account's tasks in the category, kept by triggers on tasks (drizzle/0004_category_counts.sql),
    // so listing categories reads no task.
    taskCount: integer('task_count').notNull().default(0),
  },
  (t) => [
    uniqueIndex('task_categories_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('task_categories_name_uq').on(t.accountId, t.nameNorm),
  ],
);

export const tasks = sqliteTable(
  'tasks',
  {
    ...owned(),
    name: text('name').notNull(),
    dealId: integer('deal_id').notNull(),
    categoryId: integer('category_id').notNull(),
    description: text('description'),
    dueDate: integer('due_date'),
    // A task is completed exactly when this is set.
    completedAt: integer('completed_at'),
    ...external(),
    ...timestamps,
    ...trashable(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex('tasks_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('tasks_external_id_uq').on(t.accountId, t.externalId),
    foreignKey({ columns: [t.accountId, t.dealId], foreignColumns: [deals.accountId, deals.id] }),
    foreignKey({
      columns: [t.accountId, t.categoryId],
      foreignColumns: [taskCategories.accountId, taskCategories.id],
    }),
    index('tasks_created_idx').on(t.accountId, t.createdAt, t.id),
    index('tasks_updated_idx').on(t.accountId, t.updatedAt, t.id),
    index('tasks_deal_idx').on(t.accountId, t.dealId, t.id),
    index('tasks_due_idx').on(t.accountId, t.dueDate, t.id),
    index('tasks_category_idx').on(t.accountId, t.categoryId),
    ...trashIndexes('tasks', t, {
      created: t.createdAt,
      updated: t.updatedAt,
      due: t.dueDate,
      deal: t.dealId,
    }),
  ],
);

export const taskOwners = sqliteTable(
  'task_owners',
  {
    accountId: integer('account_id').notNull(),
    taskId: integer('task_id').notNull(),
    userId: integer('user_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.taskId, t.userId] }),
    foreignKey({ columns: [t.accountId, t.taskId], foreignColumns: [tasks.accountId, tasks.id] }),
    foreignKey({ columns: [t.accountId, t.userId], foreignColumns: [users.accountId, users.id] }),
    index('task_owners_user_idx').on(t.accountId, t.userId, t.taskId),
  ],
);

/** An inbound webhook: a secret URL that external systems post events to, and what to do with them. */
export const inboundWebhooks = sqliteTable(
  'inbound_webhooks',
  {
    ...owned(),
    name: text('name').notNull(),
    // The URL's credential. Kept readable because the URL is shown on every read, like Stripe's.
    token: text('token').notNull(),
    // The token a rotation replaced, still accepted until its expiry (ms): the grace a sender has
    // to move to the new URL. One at a time: rotating again ends the older one at once.
    previousToken: text('previous_token'),
    previousTokenExpiresAt: integer('previous_token_expires_at'),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    mode: text('mode', { enum: webhookModes }).notNull().default('production'),
    secret: text('secret'),
    fields: text('fields', { mode: 'json' }).$type<FieldMapping[]>().notNull(),
    flows: text('flows', { mode: 'json' }).$type<Action[]>().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('inbound_webhooks_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('inbound_webhooks_token_uq').on(t.token),
    uniqueIndex('inbound_webhooks_previous_token_uq').on(t.previousToken),
    index('inbound_webhooks_created_idx').on(t.accountId, t.createdAt, t.id),
  ],
);

/**
 * A webhook call: accepted ones kept as received until the queue consumer has applied them, and
 * refused ones (`rejected`) kept for the configurer to see, never processed.
 */
export const inboundEvents = sqliteTable(
  'inbound_events',
  {
    ...owned(),
    webhookId: integer('webhook_id').notNull(),
    // The webhook's mode when the event arrived: a test event never writes records.
    mode: text('mode', { enum: webhookModes }).notNull(),
    status: text('status', { enum: eventStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    // The failure as data (src/core/said.ts): the panel words it; null for events failed before codes.
    errorCode: text('error_code'),
    errorParams: text('error_params', { mode: 'json' }).$type<Params>(),
    payload: text('payload').notNull(),
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    // Deduplicates for 24 hours: a later event with the same key takes it over.
    idempotencyKey: text('idempotency_key'),
    receivedAt: integer('received_at').notNull(),
    // When it was last handed to the queue: the cron re-queues pending events this old.
    queuedAt: integer('queued_at').notNull(),
    processedAt: integer('processed_at'),
    // In test mode: what the flows would have written.
    preview: text('preview', { mode: 'json' }).$type<Record<string, unknown>>(),
    // Optional fields that did not fit their type and were left out.
    warnings: text('warnings', { mode: 'json' }).$type<FieldError[]>().notNull().default(sql`'[]'`),
    // For a rejected event: the problem its sender was answered with.
    rejection: text('rejection', { mode: 'json' }).$type<Rejection>(),
    // Who the event was about (name, phone, email), read from its body as it arrived
    // (webhooks/rules/lead-name.ts), so a later change of the mapping does not blank it; null for
    // events stored before it was kept.
    lead: text('lead', { mode: 'json' }).$type<string[]>(),
    // Every move the event made after it was stored, oldest first, the last 20 only
    // (src/webhooks/log/event-log.ts appends to it in the statement of the move).
    history: text('history', { mode: 'json' }).$type<EventMark[]>().notNull().default(sql`'[]'`),
    // What the event's search index entries count for in its storage (16 x its indexed text), set by
    // the insert and rewrite triggers of drizzle/0021_event_index_bytes.sql, never by the app: the
    // payload is walked once per write, and a delete reads the figure back.
    indexBytes: integer('index_bytes').notNull().default(0),
  },
  (t) => [
    uniqueIndex('inbound_events_account_id_uq').on(t.accountId, t.id),
    foreignKey({
      columns: [t.accountId, t.webhookId],
      foreignColumns: [inboundWebhooks.accountId, inboundWebhooks.id],
    }),
    uniqueIndex('inbound_events_idempotency_uq').on(t.webhookId, t.idempotencyKey),
    index('inbound_events_webhook_idx').on(t.accountId, t.webhookId, t.receivedAt, t.id),
    index('inbound_events_status_idx').on(t.accountId, t.webhookId, t.status, t.receivedAt, t.id),
    // The latest test events, for sample fields, without walking the production ones.
    index('inbound_events_mode_idx').on(t.accountId, t.webhookId, t.mode, t.receivedAt, t.id),
    // The list's "with warnings" filter walks only the events that have some (src/webhooks/log/event-filter.ts).
    index('inbound_events_warned_idx')
      .on(t.accountId, t.webhookId, t.receivedAt, t.id)
      .where(sql`${t.warnings} <> '[]'`),
    index('inbound_events_queue_idx').on(t.status, t.queuedAt),
    // The retention purge walks the oldest events of every account (src/webhooks/log/event-log.ts).
    index('inbound_events_received_idx').on(t.receivedAt),
  ],
);

/**
 * The records an event wrote. Its primary key is also the event's claim: a second delivery's
 * batch fails on it and rolls back, so an event's records are written once.
 */
export const inboundEventResults = sqliteTable(
  'inbound_event_results',
  {
    eventId: integer('event_id').primaryKey(),
    accountId: integer('account_id').notNull(),
    contactId: integer('contact_id'),
    companyId: integer('company_id'),
    dealId: integer('deal_id'),
    taskIds: text('task_ids', { mode: 'json' }).$type<number[]>().notNull().default(sql`'[]'`),
  },
  (t) => [
    foreignKey({
      columns: [t.accountId, t.eventId],
      foreignColumns: [inboundEvents.accountId, inboundEvents.id],
    }),
    foreignKey({ columns: [t.accountId, t.contactId], foreignColumns: [contacts.accountId, contacts.id] }),
    foreignKey({ columns: [t.accountId, t.companyId], foreignColumns: [companies.accountId, companies.id] }),
    foreignKey({ columns: [t.accountId, t.dealId], foreignColumns: [deals.accountId, deals.id] }),
    // Deleting a contact, company or deal (purge, erasure) finds the results naming it, and so does
    // SQLite's own foreign key check, by these.
    index('inbound_event_results_contact_idx').on(t.accountId, t.contactId),
    index('inbound_event_results_company_idx').on(t.accountId, t.companyId),
    index('inbound_event_results_deal_idx').on(t.accountId, t.dealId),
  ],
);

/**
 * What an account's webhook events take up in D1 (src/webhooks/log/event-storage.ts), kept by triggers
 * on inbound_events (drizzle/0011_event_storage.sql) in the statement that inserts, rewrites or
 * deletes an event, so ingest reads it with the webhook and writes it at no extra round trip.
 */
export const accountEventStorage = sqliteTable('account_event_storage', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id),
  // The events' stored text in bytes (payload, headers, warnings, history, preview, rejection, error),
  // a fixed share per event for its row and index entries, and a bound on its search index entries.
  bytes: integer('bytes').notNull().default(0),
  events: integer('events').notNull().default(0),
});

/**
 * What one webhook's events take up, counted as account_event_storage counts them (same triggers,
 * drizzle/0020_webhook_event_storage.sql): ingest refuses a webhook past its share of the quota,
 * so one flooded URL cannot fill the account's storage for the others.
 */
export const webhookEventStorage = sqliteTable('webhook_event_storage', {
  webhookId: integer('webhook_id').primaryKey(),
  accountId: integer('account_id').notNull(),
  bytes: integer('bytes').notNull().default(0),
  events: integer('events').notNull().default(0),
});

/** Round-robin state: how many owners a webhook's action has handed out so far. */
export const webhookRotations = sqliteTable(
  'webhook_rotations',
  {
    accountId: integer('account_id').notNull(),
    webhookId: integer('webhook_id').notNull(),
    action: integer('action').notNull(),
    turns: integer('turns').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.webhookId, t.action] }),
    foreignKey({
      columns: [t.accountId, t.webhookId],
      foreignColumns: [inboundWebhooks.accountId, inboundWebhooks.id],
    }),
  ],
);

/**
 * An outbound webhook endpoint: a URL of the account's own that the service posts its change
 * events to, signed per Standard Webhooks (docs/outbound-webhooks.md).
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    ...owned(),
    url: text('url').notNull(),
    description: text('description'),
    eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    // Why the service turned it off (`gone`: a 410; `failing`: 5 days of failures); null when a person did.
    disabledReason: text('disabled_reason', { enum: endpointDisabledReasons }),
    // Kept readable: signing needs it. Shown once, in the create (and rotate) answer.
    secret: text('secret').notNull(),
    // The secret a rotation replaced, still signing beside the new one until its expiry (ms).
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    // Since when (ms) every attempt has failed; null after a success.
    failingSince: integer('failing_since'),
    ...timestamps,
    ...trashable(),
    // Every table with a trash has one (the trash's statements are typed over them all); an
    // endpoint is not a journaled record, so it stays 0.
    ...versioned(),
  },
  (t) => [
    uniqueIndex('webhook_endpoints_account_id_uq').on(t.accountId, t.id),
    index('webhook_endpoints_created_idx').on(t.accountId, t.createdAt, t.id),
    // The live endpoints: the list's order, and every /v1 key lookup's question whether the
    // account has one taking deliveries (db/listening.ts), asked of at most MAX_ENDPOINTS rows
    // however many the trash holds.
    index('webhook_endpoints_live_idx').on(t.accountId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    ...trashIndexes('webhook_endpoints', t, { created: t.createdAt }),
  ],
);

/**
 * One message to one endpoint: its `webhook-id` (the journal entry's id, or a ping's), the body
 * it signs, and where its attempts stand. Kept 30 days, as the attempts are.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    ...owned(),
    endpointId: integer('endpoint_id').notNull(),
    messageId: text('message_id').notNull(),
    type: text('type').notNull(),
    // The record and version it tells of: deliveries of one record go out in version order.
    recordKey: text('record_key'),
    version: integer('version'),
    body: text('body').notNull(),
    status: text('status', { enum: deliveryStatuses }).notNull().default('pending'),
    // Every attempt ever made (the log's numbering), and those of the current round, which the
    // retry schedule counts: a resend or a recover starts a new round.
    attempts: integer('attempts').notNull().default(0),
    tries: integer('tries').notNull().default(0),
    // When it is due (ms): its next attempt, or the end of the lease of the one under way.
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_account_id_uq').on(t.accountId, t.id),
    uniqueIndex('webhook_deliveries_message_uq').on(t.endpointId, t.messageId),
    foreignKey({
      columns: [t.accountId, t.endpointId],
      foreignColumns: [webhookEndpoints.accountId, webhookEndpoints.id],
    }),
    index('webhook_deliveries_endpoint_idx').on(t.accountId, t.endpointId, t.createdAt, t.id),
    index('webhook_deliveries_record_idx').on(t.endpointId, t.recordKey, t.version),
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_created_idx').on(t.createdAt),
  ],
);

/** Every attempt of a delivery: when, the answer's status, how long it took, and the answer's first 2 KiB. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    accountId: integer('account_id').notNull(),
    deliveryId: integer('delivery_id').notNull(),
    // 1 for the first attempt: the delivery's `attempts` as this one made it.
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    // The HTTP status; null when no answer came (timeout, refused URL, network error).
    status: integer('status'),
    latencyMs: integer('latency_ms').notNull(),
    response: text('response').notNull(),
    error: text('error'),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.deliveryId, t.attempt] }),
    foreignKey({
      columns: [t.accountId, t.deliveryId],
      foreignColumns: [webhookDeliveries.accountId, webhookDeliveries.id],
    }),
  ],
);

/**
 * How far outbound fan-out has read the change journal: the `seq` of the last entry whose
 * deliveries are made (written in the same batch as them). One row, `journal`.
 */
export const outboundCursor = sqliteTable('outbound_cursor', {
  name: text('name').primaryKey(),
  seq: integer('seq').notNull(),
});

/** A stored answer to a response that a client may replay. */
export type StoredResponse = { headers: Record<string, string>; body: string };

/**
 * A `/v1` POST's Idempotency-Key: the request's fingerprint and, once answered, its response.
 * The row is inserted in the request's first batch (a second request with the key fails there).
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    // Set in the same batch as the request's writes: from then on the request must never run again.
    committed: integer('committed', { mode: 'boolean' }).notNull().default(false),
    status: integer('status'),
    response: text('response', { mode: 'json' }).$type<StoredResponse>(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.key] }),
    // The cron deletes keys past their 24 hours.
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);

/**
 * A signed-in panel browser. Only the SHA-256 of its cookie is kept; the API key it signed in with
 * is read on every request (see src/panel/session.ts), so revoking the key ends the session.
 */
export const panelSessions = sqliteTable(
  'panel_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tokenHash: text('token_hash').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    apiKeyId: integer('api_key_id')
      .notNull()
      .references(() => apiKeys.id),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('panel_sessions_token_uq').on(t.tokenHash),
    index('panel_sessions_expires_idx').on(t.expiresAt),
  ],
);

/** The kinds of record the change journal tells of (src/journal/README.md). */
export const journalRecordTypes = ['company', 'contact', 'deal', 'task', 'user'] as const;
export type JournalRecordType = (typeof journalRecordTypes)[number];

/** Who made a change (src/journal/README.md). */
export type JournalActor =
  | { type: 'api_key'; id: number }
  | { type: 'webhook'; id: number; event_id: number }
  | { type: 'panel'; key_id: number }
  | { type: 'system' };

/**
 * The change journal: one entry per changed record, appended in the same D1 batch as the change
 * (src/journal/). `seq` orders the account's feed (monotonic: AUTOINCREMENT never reuses one);
 * `data` and `previous` are the record's snapshots (src/journal/snapshot.ts) after and before it.
 */
export const journalEntries = sqliteTable(
  'journal_entries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    type: text('type').notNull(),
    recordType: text('record_type', { enum: journalRecordTypes }).notNull(),
    recordId: integer('record_id').notNull(),
    version: integer('version').notNull(),
    occurredAt: integer('occurred_at').notNull(),
    actor: text('actor', { mode: 'json' }).$type<JournalActor>().notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>(),
    previous: text('previous', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex('journal_entries_id_uq').on(t.id),
    index('journal_entries_feed_idx').on(t.accountId, t.seq),
    index('journal_entries_record_idx').on(t.accountId, t.recordType, t.recordId, t.seq),
    // A record's entry of one version (a write's "has an entry of its next version"): by the record
    // index alone, that check walked every entry of the record, a cost growing with its history.
    index('journal_entries_version_idx').on(t.accountId, t.recordType, t.recordId, t.version),
    // The entries still without data: a batch's placeholders (src/journal/statements.ts) and
    // erased ones. A few rows, so finding a batch's changed records by them costs nothing.
    index('journal_entries_open_idx').on(t.recordType, t.accountId, t.recordId).where(sql`${t.data} is null`),
    // The retention purge walks the oldest entries of every account.
    index('journal_entries_occurred_idx').on(t.occurredAt),
  ],
);

/** A table whose rows belong to one account. */
export type TenantTable =
  | typeof users
  | typeof companies
  | typeof contacts
  | typeof deals
  | typeof tasks
  | typeof taskCategories
  | typeof inboundWebhooks
  | typeof inboundEvents
  | typeof webhookEndpoints;

/** A tenant table the API creates and updates rows of: every row has created_at and updated_at. */
export type ResourceTable = Exclude<TenantTable, typeof taskCategories | typeof inboundEvents>;

/** A table whose rows go to the trash on DELETE. */
export type TrashTable =
  | typeof users
  | typeof companies
  | typeof contacts
  | typeof deals
  | typeof tasks
  | typeof webhookEndpoints;

/**
 * A CSV import (docs/import-export.md#csv-import): its file in R2 (`file_key`), read from `offset`
 * (bytes) in chunks by the `crm-imports` queue, with the key that started it, whose account and
 * live state every chunk's writes are scoped by.
 */
export const imports = sqliteTable(
  'imports',
  {
    ...owned(),
    keyHash: text('key_hash').notNull(),
    resource: text('resource').notNull(),
    mode: text('mode').notNull(),
    status: text('status').notNull(),
    fileKey: text('file_key').notNull(),
    fileBytes: integer('file_bytes').notNull(),
    /** The header's cells, the delimiter, the field each column maps to (null: ignored). */
    header: text('header', { mode: 'json' }).$type<string[]>().notNull(),
    delimiter: text('delimiter').notNull(),
    mapping: text('mapping', { mode: 'json' }).$type<(string | null)[]>().notNull(),
    offset: integer('offset').notNull(),
    /** The line the next chunk starts at (1-based, the header being line 1). */
    line: integer('line').notNull(),
    rows: integer('rows').notNull().default(0),
    created: integer('created').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    /** Rows of an update or upsert whose values changed nothing (no journal entry, no new version). */
    unchanged: integer('unchanged').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    uniqueIndex('imports_account_id_uq').on(t.accountId, t.id),
    index('imports_account_status_idx').on(t.accountId, t.status),
    // GET /v1/imports: newest first, a page read in order, never the account's imports sorted.
    index('imports_created_idx').on(t.accountId, t.createdAt, t.id),
  ],
);

/**
 * One row per chunk written, keyed by its starting byte: a redelivered chunk's insert breaks this
 * key, so its write batch (which holds this insert) writes nothing. Holds the chunk's failed rows.
 */
export const importChunks = sqliteTable(
  'import_chunks',
  {
    importId: integer('import_id')
      .notNull()
      .references(() => imports.id, { onDelete: 'cascade' }),
    offset: integer('offset').notNull(),
    /** Each failed row: its line, its cells as read, and why. */
    errors: text('errors', { mode: 'json' }).$type<{ line: number; cells: string[]; reason: string }[]>(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.offset] })],
);

/**
 * An account's move between shards (docs/scaling.md, "Moving an account"): on shard 0 beside the
 * directory, driven one bounded step at a time by the `crm-moves` queue (src/moves/). `progress`
 * names the step to run next (phase, table, keyset cursor), so a re-delivered step finds it taken
 * and does nothing; `tables` holds each table's copied rows, counts and checksums.
 */
export const accountMoves = sqliteTable(
  'account_moves',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id').notNull(),
    fromShard: integer('from_shard').notNull(),
    toShard: integer('to_shard').notNull(),
    state: text('state', { enum: ['copying', 'switching', 'cleaning', 'done', 'failed'] }).notNull(),
    progress: text('progress', { mode: 'json' }).$type<MoveProgress>().notNull(),
    tables: text('tables', { mode: 'json' }).$type<Record<string, MoveTableStats>>().notNull(),
    /** The old shard's outbound cursor when the freeze committed (src/moves/journal.ts). */
    fanoutFrom: integer('fanout_from'),
    frozenAt: integer('frozen_at'),
    switchedAt: integer('switched_at'),
    /** When the old copy's API keys were gone: from then on old keys are forwarded, and writes go through. */
    reopenedAt: integer('reopened_at'),
    error: text('error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('account_moves_account_idx').on(t.accountId),
    // One move of an account at a time: a second while one runs breaks this index (409).
    uniqueIndex('account_moves_running_uq').on(t.accountId).where(sql`${t.state} not in ('done', 'failed')`),
    // The cron's look for moves whose step message was lost.
    index('account_moves_stalled_idx').on(t.updatedAt).where(sql`${t.state} not in ('done', 'failed')`),
  ],
);

/** Where a move stands: the step its next message runs. */
export type MoveProgress = {
  phase:
    | 'begin'
    | 'copy'
    | 'freeze'
    | 'prune'
    | 'reconcile'
    | 'verify'
    | 'switch'
    | 'clean'
    | 'drain'
    | 'unwind';
  /** The position in the phase's order of tables (src/moves/tables.ts). */
  table: number;
  /** The last key copied or compared in that table (its key columns' values); null: from the start. */
  after: (number | string)[] | null;
  /** Counts the step messages: each message names the one it runs, a stale one is ignored. */
  step: number;
};

/** One table of a move: rows copied, and the verify's counts and checksums on both sides. */
export type MoveTableStats = {
  /** Rows written by the copy with writes open, and pages it left to the verify (a parent not copied yet). */
  copied: number;
  deferred: number;
  /** Rows the verify wrote or deleted on the new shard because they differed. */
  repaired: number;
  rows_from: number;
  rows_to: number;
  checksum_from: string;
  checksum_to: string;
};

/**
 * A moving account's freeze on a shard (src/moves/): while its row is here, triggers on every table
 * of the account's data refuse its inserts, updates and deletes (`account_moving`), whatever path
 * writes; `cleaning` lets the move's deletes through. `incoming` marks the shard being copied to:
 * the copy's writes check it, so a late step message never writes after the switch.
 */
export const accountFreezes = sqliteTable('account_freezes', {
  accountId: integer('account_id').primaryKey(),
  state: text('state', { enum: ['frozen', 'moved', 'cleaning', 'incoming'] }).notNull(),
  moveId: integer('move_id').notNull(),
});

/**
 * A webhook call that arrived while its account was frozen (src/moves/held.ts): kept on the shard
 * that received it, outside the freeze, and replayed as an event on the account's shard once the
 * move has switched. `call` holds the event row's columns as ingest made them.
 */
export const heldEvents = sqliteTable(
  'held_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id').notNull(),
    webhookId: integer('webhook_id').notNull(),
    call: text('call', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    receivedAt: integer('received_at').notNull(),
  },
  (t) => [index('held_events_account_idx').on(t.accountId, t.id)],
);

/**
 * Credentials of moved accounts (src/moves/forwards.ts), on shard 0 beside the directory: the
 * SHA-256 of an API key or webhook token naming the shard its account left, and the shard it is on.
 * Read only when a credential misses on the shard it names.
 */
export const credentialForwards = sqliteTable('credential_forwards', {
  hash: text('hash').primaryKey(),
  shard: integer('shard').notNull(),
  accountId: integer('account_id').notNull(),
});
