import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import { iso } from '../contracts/common';
import { CompanyUpdate } from '../contracts/companies';
import { ContactUpdate } from '../contracts/contacts';
import { DealCreate } from '../contracts/deals';
import { taskFields } from '../contracts/tasks';
import type { FieldError } from '../core/errors';
import type { Match, Plan, Step } from '../core/flows';
import type { Owner } from '../core/webhook-config';
import type { Db } from '../db/client';
import { type Batch, changedColumns, insertUnless, newRow } from '../db/own';
import {
  companies,
  contacts,
  deals,
  inboundEventResults,
  taskOwners,
  tasks,
  webhookRotations,
} from '../db/schema';
import { fieldErrors } from '../http/openapi';
import { companySpec } from '../model/companies';
import { contactSpec } from '../model/contacts';
import { dealSpec } from '../model/deals';
import { taskSpec } from '../model/tasks';

// The `/v1` write schemas check what the flows would write, so a record made by a webhook obeys
// exactly the rules of one made through the API.
const TaskBody = z.strictObject(taskFields).omit({ deal_id: true });

/** A planned step whose body passed its resource's `/v1` schema. */
export type ValidStep =
  | {
      action: 'upsert_contact';
      index: number;
      owner?: Owner;
      body: z.infer<typeof ContactUpdate>;
      match?: Match;
      /** The name a contact created without one takes (its email or phone, see salvage.ts). */
      fallbackName?: string;
    }
  | {
      action: 'upsert_company';
      index: number;
      owner?: Owner;
      body: z.infer<typeof CompanyUpdate> & { cnpj: string };
    }
  | { action: 'create_deal'; index: number; owner?: Owner; body: z.infer<typeof DealCreate> }
  | { action: 'create_task'; index: number; owner?: Owner; body: z.infer<typeof TaskBody> };

const schemas = {
  upsert_contact: ['contact', ContactUpdate],
  upsert_company: ['company', CompanyUpdate],
  create_deal: ['deal', DealCreate],
  create_task: ['task', TaskBody],
} as const;

/**
 * A planned step with its body parsed by its resource's `/v1` schema, or the rules the body breaks
 * (paths relative to the body) and the record it was for.
 */
export function parseStep(step: Step): { step: ValidStep } | { record: string; errors: FieldError[] } {
  const [record, schema] = schemas[step.action];
  const parsed = schema.safeParse(step.body);
  if (parsed.success) return { step: { ...step, body: parsed.data } as ValidStep };
  return { record, errors: fieldErrors(parsed.error, step.body) };
}

/** What the flows found already in the account, read before writing. */
export type Found = { contactId?: number; companyId?: number; turns: ReadonlyMap<number, number> };

/** The account's live contacts `match` finds: one in the trash is not matched, so an event creates a new one. */
export const matchOf = (accountId: number, match: Match): SQL | undefined =>
  and(
    eq(contacts.accountId, accountId),
    isNull(contacts.deletedAt),
    match.by === 'phone' ? eq(contacts.phone, match.value) : eq(contacts.emailNorm, match.value),
  );

/** The first contact `match` finds, as a subquery. */
const matchedContact = (accountId: number, match: Match) =>
  sql<number>`(select ${contacts.id} from ${contacts} where ${matchOf(accountId, match)} order by ${asc(contacts.id)} limit 1)`;

type Context = { accountId: number; webhookId: number; eventId: number; now: number };

/**
 * The statements that write one event's records, for ONE atomic batch. The event's results row is
 * inserted first: it is the claim that makes a second delivery's batch fail and roll back, and it
 * carries each new record's id to the statements after it.
 */
export function recordStatements(db: Db, ctx: Context, steps: ValidStep[], found: Found): Batch {
  const { accountId, eventId, now } = ctx;
  const r = inboundEventResults;
  const result = (column: (typeof r)[keyof typeof r & ('contactId' | 'companyId' | 'dealId')]) =>
    sql<number>`(select ${column} from ${r} where ${r.eventId} = ${eventId})`;
  const setResult = (values: SQLiteUpdateSetSource<typeof r>) =>
    db.update(r).set(values).where(eq(r.eventId, eventId));
  const statements: Batch = [db.insert(r).values({ eventId, accountId })];
  const ownerOf = (step: ValidStep): number | SQL<number> | undefined => {
    if (!step.owner) return undefined;
    if ('user_id' in step.owner) return step.owner.user_id;
    const ids = step.owner.round_robin;
    const slot = and(eq(webhookRotations.webhookId, ctx.webhookId), eq(webhookRotations.action, step.index));
    // Counted inside the batch, so concurrent events each take the next turn. D1 binds numbers as
    // REAL, hence the cast: a JSON path index must read `0`, not `0.0`.
    statements.push(
      db
        .insert(webhookRotations)
        .values({ accountId, webhookId: ctx.webhookId, action: step.index, turns: 1 })
        .onConflictDoUpdate({
          target: [webhookRotations.webhookId, webhookRotations.action],
          set: { turns: sql`${webhookRotations.turns} + 1` },
        }),
    );
    return sql<number>`(select json_extract(${JSON.stringify(ids)}, '$[' || cast((${webhookRotations.turns} - 1) % ${ids.length} as integer) || ']') from ${webhookRotations} where ${slot})`;
  };
  for (const step of steps) {
    // An update keeps the record's owner, so it takes no round-robin turn.
    const updates =
      (step.action === 'upsert_contact' && found.contactId !== undefined) ||
      (step.action === 'upsert_company' && found.companyId !== undefined);
    const owner = updates ? undefined : ownerOf(step);
    switch (step.action) {
      case 'upsert_contact': {
        const { custom_fields, ...fields } = step.body;
        if (found.contactId !== undefined) statements.push(setResult({ contactId: found.contactId }));
        else {
          const name = step.body.name ?? step.fallbackName;
          if (name === undefined) throw new Error('a contact is created only with a name (see process.ts)');
          const row = {
            ...newRow(contactSpec, { ...step.body, name }, accountId, now),
            ...(owner && { ownerId: owner }),
          };
          // With a match key, another event may have created this contact since it was looked up:
          // insert only if it is still absent, then take whichever contact the match finds.
          statements.push(
            step.match
              ? insertUnless(db, contacts, row, matchOf(accountId, step.match))
              : db.insert(contacts).values(row),
            setResult({
              contactId: step.match ? matchedContact(accountId, step.match) : sql`last_insert_rowid()`,
            }),
          );
        }
        // The found (or raced) contact takes the event's fields; on a row just inserted this changes
        // nothing. Mapped custom fields are merged into the contact's, not replacing the others.
        if (found.contactId !== undefined || step.match) {
          statements.push(
            db
              .update(contacts)
              .set({
                ...changedColumns(contactSpec, fields, accountId),
                ...(custom_fields && {
                  customFields: sql`json_patch(${contacts.customFields}, ${JSON.stringify(custom_fields)})`,
                }),
                updatedAt: sql`max(${now}, ${contacts.updatedAt})`,
              })
              .where(and(eq(contacts.accountId, accountId), eq(contacts.id, result(r.contactId)))),
          );
        }
        break;
      }
      case 'upsert_company': {
        const { cnpj, name } = step.body;
        const mine = and(eq(companies.accountId, accountId), eq(companies.cnpj, cnpj));
        if (found.companyId === undefined) {
          if (name === undefined) throw new Error('a company is created only with a name (see process.ts)');
          statements.push(
            db
              .insert(companies)
              .values({
                ...newRow(companySpec, { ...step.body, name }, accountId, now),
                ...(owner && { ownerId: owner }),
              })
              .onConflictDoNothing({ target: [companies.accountId, companies.cnpj] }),
          );
        }
        statements.push(
          setResult({ companyId: sql`(select ${companies.id} from ${companies} where ${mine})` }),
          // A CNPJ is one legal entity, and its company stays in the account while in the trash
          // (CNPJs are unique there): the event brings it back rather than write into the trash.
          db
            .update(companies)
            .set({ deletedAt: null })
            .where(and(mine, isNotNull(companies.deletedAt))),
        );
        // As for contacts: a found (or raced) company takes the event's name.
        if (name !== undefined) {
          statements.push(
            db
              .update(companies)
              .set({
                ...changedColumns(companySpec, { name }, accountId),
                updatedAt: sql`max(${now}, ${companies.updatedAt})`,
              })
              .where(mine),
          );
        }
        break;
      }
      case 'create_deal':
        statements.push(
          db.insert(deals).values({
            ...newRow(dealSpec, step.body, accountId, now),
            contactId: result(r.contactId),
            companyId: result(r.companyId),
            ...(owner && { ownerId: owner }),
          }),
          setResult({ dealId: sql`last_insert_rowid()` }),
        );
        break;
      case 'create_task':
        statements.push(
          ...(taskSpec.before?.(db, step.body, accountId) ?? []),
          db
            .insert(tasks)
            // Its deal is the one this event wrote before it, known only inside the batch: the
            // placeholder id is replaced by the statement that finds it.
            .values({
              ...newRow(taskSpec, { ...step.body, deal_id: 0 }, accountId, now),
              dealId: result(r.dealId),
            }),
          // An update leaves last_insert_rowid() alone: the owner row below still finds the task.
          setResult({ taskIds: sql`json_insert(${r.taskIds}, '$[#]', last_insert_rowid())` }),
          ...(owner === undefined
            ? []
            : [db.insert(taskOwners).values({ accountId, taskId: sql`last_insert_rowid()`, userId: owner })]),
        );
        break;
    }
  }
  const actions = new Set(steps.map((s) => s.action));
  if (actions.has('upsert_contact') && actions.has('upsert_company')) {
    statements.push(
      db
        .update(contacts)
        .set({ companyId: result(r.companyId) })
        .where(and(eq(contacts.accountId, accountId), eq(contacts.id, result(r.contactId)))),
    );
  }
  return statements;
}

/** What production would write, for a test-mode event: the records and the owners they would get. */
export function preview(steps: ValidStep[], found: Found, skipped: Plan['skipped']): Record<string, unknown> {
  const owner = (step: Step | ValidStep) => {
    if (!step.owner) return {};
    if ('user_id' in step.owner) return { owner_id: step.owner.user_id };
    const ids = step.owner.round_robin;
    return { owner_id: ids[(found.turns.get(step.index) ?? 0) % ids.length] };
  };
  // An update keeps the record's owner, so only a create shows one.
  const upsert = (id: number | undefined, created: object, updated: object) =>
    id === undefined ? { action: 'create', fields: created } : { action: 'update', id, fields: updated };
  const out: Record<string, unknown> = { tasks: [], skipped };
  for (const step of steps) {
    const fields = { ...step.body, ...owner(step) };
    switch (step.action) {
      case 'upsert_contact':
        out.contact = upsert(
          found.contactId,
          { name: step.body.name ?? step.fallbackName, ...fields },
          step.body,
        );
        break;
      case 'upsert_company':
        out.company = upsert(found.companyId, fields, step.body);
        break;
      case 'create_deal':
        out.deal = { action: 'create', fields };
        break;
      case 'create_task': {
        const due = step.body.due_date;
        (out.tasks as unknown[]).push({
          action: 'create',
          fields: { ...fields, due_date: due === null || due === undefined ? null : iso(due) },
        });
        break;
      }
    }
  }
  return out;
}
