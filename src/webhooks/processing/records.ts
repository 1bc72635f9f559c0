import { and, eq, type SQL, sql } from 'drizzle-orm';
import { fieldErrors } from '../../contracts/field-errors';
import type { FieldError } from '../../core/errors';
import type { Db } from '../../db/client';
import type { Batch } from '../../db/own';
import { inboundEventResults, webhookRotations } from '../../db/schema';
import { moduleOf, type ValidStep, type WritableStep } from '../actions';
import type { ActionName, Found, Preview, Writer } from '../actions/action';
import type { Plan, Step } from '../rules/flows';

// The `/v1` write schemas check what the flows would write, so a record made by a webhook obeys
// exactly the rules of one made through the API.

/**
 * A planned step with its body parsed by its resource's `/v1` schema, or the rules the body breaks
 * (paths relative to the body) and the record it was for.
 */
export function parseStep(step: Step): { step: ValidStep } | { record: string; errors: FieldError[] } {
  const { record, body } = moduleOf(step.action);
  const parsed = body.safeParse(step.body);
  if (parsed.success) return { step: { ...step, body: parsed.data } as ValidStep };
  return { record, errors: fieldErrors(parsed.error, step.body, true) };
}

type Context = { accountId: number; webhookId: number; eventId: number; now: number };

/** The writer the actions' statements push to, for one event: its results row and its owners. */
function writer(db: Db, ctx: Context, statements: Batch): Writer {
  const { accountId, eventId } = ctx;
  const r = inboundEventResults;
  const columns = { contactId: r.contactId, companyId: r.companyId, dealId: r.dealId, taskIds: r.taskIds };
  return {
    db,
    accountId,
    now: ctx.now,
    actor: { webhookId: ctx.webhookId, eventId },
    push: (...more) => statements.push(...more),
    result: (column) => sql`(select ${columns[column]} from ${r} where ${r.eventId} = ${eventId})`,
    setResult: (values) => db.update(r).set(values).where(eq(r.eventId, eventId)),
    owner: (step): number | SQL<number> | undefined => {
      if (!step.owner) return undefined;
      if ('user_id' in step.owner) return step.owner.user_id;
      const ids = step.owner.round_robin;
      const slot = and(
        eq(webhookRotations.webhookId, ctx.webhookId),
        eq(webhookRotations.action, step.index),
      );
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
    },
  };
}

/**
 * The statements that write one event's records, for ONE atomic batch. The event's results row is
 * inserted first: it is the claim that makes a second delivery's batch fail and roll back, and it
 * carries each new record's id to the statements after it. Each action writes its own record
 * (src/webhooks/actions/); an update keeps the record's owner, so it takes no round-robin turn.
 */
export function recordStatements(db: Db, ctx: Context, steps: WritableStep[]): Batch {
  const statements: Batch = [
    db.insert(inboundEventResults).values({ eventId: ctx.eventId, accountId: ctx.accountId }),
  ];
  const w = writer(db, ctx, statements);
  for (const step of steps) moduleOf(step.action).statements(w, step);
  const written = new Set<ActionName>(steps.map((s) => s.action));
  for (const name of written) moduleOf(name).link?.(w, written);
  for (const name of written) statements.push(...moduleOf(name).journal(w));
  return statements;
}

/** What production would write, for a test-mode event: the records and the owners they would get. */
export function preview(
  steps: WritableStep[],
  found: Found,
  skipped: Plan['skipped'],
): Record<string, unknown> {
  const owner = (step: WritableStep) => {
    if (!step.owner) return {};
    if ('user_id' in step.owner) return { owner_id: step.owner.user_id };
    const ids = step.owner.round_robin;
    return { owner_id: ids[(found.turns.get(step.index) ?? 0) % ids.length] };
  };
  const out: Preview = { tasks: [], skipped };
  for (const step of steps) moduleOf(step.action).preview(step, owner(step), out);
  return out;
}
