import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { said } from '../../src/core/said';
import { eventStatuses } from '../../src/core/statuses';
import { type Db, primaryDb } from '../../src/db/client';
import { inboundEvents } from '../../src/db/schema';
import * as eventLog from '../../src/webhooks/log/event-log';
import {
  discardEvents,
  failEvent,
  giveUpEvents,
  MAX_REJECTED_EVENTS,
  noteRetry,
  previewEvent,
  processedEvent,
  promoteTestEvent,
  purgeExpiredEvents,
  rejectEvent,
  replayFailed,
  requeueStrandedEvents,
  storeEvent,
  trimRejections,
} from '../../src/webhooks/log/event-log';
import {
  type EventMove,
  type EventStatus,
  eventMoves,
  from,
  GONE,
  NEW,
} from '../../src/webhooks/log/event-states';
import { accountsOnShard, insertRow, type Json, newAccount, newWebhook } from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Every write of the event log, run against an event in every status: it moves the event only if
// the table allows that move from that status. Both lists come from the code, so a new status or
// a new move is walked here without a line of this file changing (a move needs its runner below,
// which the type of `runners` demands).

/** Long before any retention or stranded window, so the purge and the requeue may take it. */
const OLD = 1_000_000;
const REJECTION = JSON.stringify({ status: 400, code: 'invalid_fields', detail: 'x', body: null });

type Subject = { id: number; accountId: number; webhookId: number; mode: 'production' | 'test' };

/** An event of a new webhook in `status`, received and queued long ago. */
async function eventIn(status: EventStatus): Promise<Subject> {
  const account = await newAccount();
  const hook = await newWebhook(account.key);
  const row = { account_id: account.id, webhook_id: hook.id, mode: hook.mode };
  const id = await insertRow('inbound_events', {
    ...row,
    status,
    payload: '{}',
    headers: '{}',
    received_at: OLD,
    queued_at: OLD,
    rejection: REJECTION,
  });
  return { id, accountId: account.id, webhookId: hook.id, mode: hook.mode };
}

/**
 * MAX_REJECTED_EVENTS rejected events newer than the subject, and one older, with the same
 * problem: the subject is neither the newest nor the first of its problem, so the trim may take it.
 */
async function newerRejections({ accountId, webhookId, mode }: Subject): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO inbound_events (account_id, webhook_id, mode, status, payload, headers, received_at, queued_at, rejection)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?4)
     SELECT ?1, ?2, ?3, 'rejected', 'null', '{}', ?5 + i, ?5 + i, ?6 FROM n
     UNION ALL SELECT ?1, ?2, ?3, 'rejected', 'null', '{}', ?7, ?7, ?6`,
  )
    .bind(accountId, webhookId, mode, MAX_REJECTED_EVENTS, Date.now(), REJECTION, OLD - 1)
    .run();
}

const accepted = { payload: '{}', headers: {}, idempotencyKey: undefined, warnings: [], lead: [] };
const hookOf = (s: Subject) => ({ accountId: s.accountId, id: s.webhookId, mode: s.mode });

/** The write of each move, aimed at the subject (an insert adds an event of its webhook). */
const runners: Record<EventMove, (db: Db, s: Subject) => Promise<unknown>> = {
  store: (db, s) => storeEvent(db, hookOf(s), accepted, Date.now()),
  reject: (db, s) =>
    db.batch(
      rejectEvent(db, hookOf(s), { headers: {}, rejection: JSON.parse(REJECTION), lead: [] }, Date.now()),
    ),
  preview: (db, s) => previewEvent(db, s.id, { preview: { contact: null }, warnings: [] }, Date.now()),
  process: (db, s) => processedEvent(db, s.id, [], Date.now()),
  fail: (db, s) => failEvent(db, s.id, said('record_unwritable', { detail: 'SQLITE_TOOBIG' })),
  retryNote: (db, s) => noteRetry(db, s.id, said('retrying', { detail: 'D1 was busy' }), Date.now() + 10_000),
  giveUp: (db, s) => giveUpEvents(db, [s.id]),
  requeue: (db) => requeueStrandedEvents(db, OLD + 1, Date.now()),
  replay: (db, s) => replayFailed(db, eq(inboundEvents.id, s.id), Date.now()),
  // Only a webhook in production takes its test events for real.
  promote: async (db, s) => {
    await env.DB.prepare("UPDATE inbound_webhooks SET mode = 'production' WHERE id = ?")
      .bind(s.webhookId)
      .run();
    return promoteTestEvent(db, eq(inboundEvents.id, s.id), Date.now());
  },
  trim: async (db, s) => {
    await newerRejections(s);
    return trimRejections(db, s.accountId, s.webhookId);
  },
  discard: (db, s) => db.batch(discardEvents(db, eq(inboundEvents.id, s.id), 10)),
  purge: (db) => purgeExpiredEvents(db, Date.now(), {}),
};

/** Whether some move of the table takes an event from `source` to `target`. */
const allowed = (source: EventStatus | typeof NEW, target: EventStatus | typeof GONE): boolean =>
  Object.values(eventMoves).some((m) => m.to === target && (m.from as readonly string[]).includes(source));

const rowOf = (id: number) =>
  env.DB.prepare('SELECT * FROM inbound_events WHERE id = ?').bind(id).first<Json>();
const newestOf = (webhookId: number) =>
  env.DB.prepare('SELECT status FROM inbound_events WHERE webhook_id = ? ORDER BY id DESC LIMIT 1')
    .bind(webhookId)
    .first<{ status: string }>();

describe('event log: every move against every status', () => {
  for (const [move, { to }] of Object.entries(eventMoves) as [EventMove, (typeof eventMoves)[EventMove]][]) {
    for (const status of eventStatuses) {
      const allows = from(move).includes(status);
      it(`${move}: ${status} → ${to} ${allows ? 'happens' : 'is refused'}`, async () => {
        const db = primaryDb(env, 0);
        const subject = await eventIn(status);
        const before = await rowOf(subject.id);
        await runners[move](db, subject);
        const after = await rowOf(subject.id);
        if (!allows) expect(after).toEqual(before);
        else if (to === GONE) expect(after).toBeNull();
        else {
          expect(after?.status).toBe(to);
          // Moved, even where the status stays (a retry note, a requeue).
          expect(after).not.toEqual(before);
        }
        if (allows) expect(allowed(status, to)).toBe(true);
      });
    }
    if ((eventMoves[move].from as readonly string[]).includes(NEW)) {
      it(`${move}: a new call → ${to}`, async () => {
        const subject = await eventIn('pending');
        await runners[move](primaryDb(env, 0), subject);
        expect(await newestOf(subject.webhookId)).toEqual({ status: to });
      });
    }
  }
});

describe('event log: the table', () => {
  it('names, for each move, a function of the event log that makes it', () => {
    for (const { by } of Object.values(eventMoves)) {
      const name = /\((\w+)\)$/.exec(by)?.[1] ?? '';
      expect(Object.keys(eventLog), by).toContain(name);
    }
  });

  it('holds the moves the webhook lives by, and no way back from processed, test or rejected but processing a test event for real', () => {
    for (const to of ['processed', 'test', 'failed'] as const) expect(allowed('pending', to)).toBe(true);
    expect(allowed(NEW, 'pending')).toBe(true);
    expect(allowed(NEW, 'rejected')).toBe(true);
    expect(allowed('failed', 'pending')).toBe(true);
    expect(allowed('pending', 'pending')).toBe(true);
    expect(allowed('pending', GONE)).toBe(false);
    expect(eventMoves.promote).toMatchObject({ from: ['test'], to: 'pending' });
    for (const source of ['processed', 'test', 'rejected'] as const) {
      for (const to of eventStatuses) {
        expect(allowed(source, to)).toBe(source === 'test' && to === 'pending');
      }
      expect(allowed(source, GONE)).toBe(true);
    }
  });
});
