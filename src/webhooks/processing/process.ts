import { and, eq } from 'drizzle-orm';
import { DomainError, type FieldError, rootMessage } from '../../core/errors';
import type { Refs } from '../../core/refs';
import { type Said, said } from '../../core/said';
import type { Db } from '../../db/client';
import { brokenConstraint } from '../../db/errors';
import { assertRefs, refsQuery } from '../../db/refs';
import { accounts, inboundEvents, inboundWebhooks, webhookRotations } from '../../db/schema';
import type { Bindings } from '../../env';
import { moduleOf, planFlows, type ValidStep, type WritableStep } from '../actions';
import type { Found } from '../actions/action';
import { previewEvent, processedEvent } from '../log/event-log';
import { ownerRefs } from '../rules/config';
import { ingestWarnings } from '../rules/event-warnings';
import { injected } from '../rules/faults';
import { readFields } from '../rules/fields';
import { preview, recordStatements } from './records';
import { liveOwners, type Salvaged, usableSteps, writableSteps } from './salvage';

/** How processing ended: `done` (or nothing to do), or a permanent failure that no retry can fix. */
export type Outcome = { status: 'done' } | { status: 'failed'; error: Said };

const failed = (error: Said): Outcome => ({ status: 'failed', error });

type Loaded = {
  event: typeof inboundEvents.$inferSelect;
  hook: typeof inboundWebhooks.$inferSelect;
  zone: string;
};

/**
 * Applies one event: loads it with its webhook, maps and validates its fields, plans the flows,
 * reads what they need to know (an existing contact or company, the owners), then writes every
 * record in one batch, or stores the preview of a test event. Transient failures are thrown.
 */
export async function processEvent(
  db: Db,
  eventId: number,
  options: { attempt: number; env: Pick<Bindings, 'FAULT_INJECTION'> },
): Promise<Outcome> {
  const loaded = await loadPending(db, eventId);
  // Processed, previewed or failed already: a redelivery changes nothing.
  if (!loaded) return { status: 'done' };
  const payload: unknown = JSON.parse(loaded.event.payload);
  if (options.attempt === 1 && injected(options.env, payload, 'consumer'))
    throw new Error('Injected transient fault');
  const planned = await planSteps(db, loaded, payload);
  if ('error' in planned) return failed(planned.error);
  const { steps, found, warnings, skipped } = planned;
  const now = Date.now();
  if (loaded.event.mode === 'test') {
    await previewEvent(db, eventId, { preview: preview(steps, found, skipped), warnings }, now);
    return { status: 'done' };
  }
  const context = { accountId: loaded.event.accountId, webhookId: loaded.hook.id, eventId, now };
  return writeRecords(db, context, steps, warnings);
}

/** The event with its webhook and its account's time zone, if it is still pending. */
async function loadPending(db: Db, eventId: number): Promise<Loaded | undefined> {
  const [loaded] = await db
    .select({ event: inboundEvents, hook: inboundWebhooks, zone: accounts.timeZone })
    .from(inboundEvents)
    .innerJoin(accounts, eq(accounts.id, inboundEvents.accountId))
    .innerJoin(
      inboundWebhooks,
      and(
        eq(inboundWebhooks.accountId, inboundEvents.accountId),
        eq(inboundWebhooks.id, inboundEvents.webhookId),
      ),
    )
    .where(eq(inboundEvents.id, eventId));
  return loaded?.event.status === 'pending' ? loaded : undefined;
}

/**
 * The steps the event's flows take, fitted to what D1 holds now (live owners, the contact it
 * matches, its custom fields), with everything left out on the way as warnings; or why no step
 * can run (the mapping changed, a contact to create has no name).
 */
async function planSteps(
  db: Db,
  { event, hook, zone }: Loaded,
  payload: unknown,
): Promise<
  | { error: Said }
  | { steps: WritableStep[]; found: Found; warnings: FieldError[]; skipped: Salvaged['skipped'] }
> {
  const { values, errors, warnings: fieldWarnings } = readFields(payload, hook.fields);
  if (errors.length) {
    return { error: said('mapping_changed', { errors }) };
  }
  const salvaged = usableSteps(planFlows(hook, values, { receivedAt: event.receivedAt, zone }), hook.fields);
  let steps = salvaged.steps;
  const refs = ownerRefs(steps);
  const { owners, found } = await lookUp(db, event.accountId, hook.id, steps, refs);
  steps = liveOwners(steps, missingRefs(owners, refs), salvaged.warnings);
  const writable = writableSteps(steps, found, hook.fields, salvaged);
  if ('error' in writable) return { error: writable.error };
  const warnings = [...ingestWarnings(event.warnings), ...fieldWarnings, ...salvaged.warnings];
  return { steps: writable.steps, found, warnings, skipped: salvaged.skipped };
}

/**
 * The event's records and its `processed` status in one batch; a failure every retry would meet
 * again is the event's failure, any other is thrown for the queue to retry.
 */
async function writeRecords(
  db: Db,
  context: Parameters<typeof recordStatements>[1],
  steps: WritableStep[],
  warnings: FieldError[],
): Promise<Outcome> {
  try {
    await db.batch([
      ...recordStatements(db, context, steps),
      processedEvent(db, context.eventId, warnings, context.now),
    ]);
  } catch (err) {
    const constraint = brokenConstraint(err);
    // Another delivery of this event got its claim in first: its records are the event's.
    if (constraint === 'unique' && rootMessage(err).includes('inbound_event_results'))
      return { status: 'done' };
    // A broken constraint or a value SQLite refuses fails the same way on every retry.
    if (
      constraint ||
      /(NOT NULL|CHECK) constraint failed|SQLITE_(TOOBIG|RANGE|MISMATCH)/.test(rootMessage(err))
    ) {
      return failed(said('record_unwritable', { detail: rootMessage(err) }));
    }
    throw err;
  }
  return { status: 'done' };
}

/** The owner references that are not live users of the account, as assertRefs names them. */
function missingRefs(rows: Record<string, unknown>[], refs: Refs): FieldError[] {
  try {
    assertRefs(rows, refs);
    return [];
  } catch (err) {
    if (err instanceof DomainError) return err.errors ?? [];
    throw err;
  }
}

/**
 * What the steps need to know, in one round trip: which owners are live users, the round-robin
 * turns, and what each step's action looks up (src/webhooks/actions/: the contact the event
 * matches, the company of its CNPJ).
 */
async function lookUp(
  db: Db,
  accountId: number,
  webhookId: number,
  steps: ValidStep[],
  refs: Refs,
): Promise<{ owners: Record<string, unknown>[]; found: Found }> {
  const lookups = steps.flatMap((step) => moduleOf(step.action).lookup?.(step, db, accountId) ?? []);
  const [owners, rotations, ...rows] = await db.batch([
    refsQuery(db, accountId, refs),
    db
      .select({ action: webhookRotations.action, turns: webhookRotations.turns })
      .from(webhookRotations)
      .where(eq(webhookRotations.webhookId, webhookId)),
    ...lookups.map((l) => l.query),
  ]);
  const found: Found = { turns: new Map(rotations.map((r) => [r.action, r.turns])) };
  for (const [i, l] of lookups.entries()) Object.assign(found, l.found(rows[i]));
  return { owners, found };
}
