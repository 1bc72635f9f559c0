import type { z } from '@hono/zod-openapi';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { rangeConditions } from '../../db/filters';
import { inboundEvents } from '../../db/schema';
import { accountOf, type KeyRef } from '../../db/tenant';
import type { WebhookEventFilter } from '../contract/schemas';
import { eventMatch } from '../rules/event-search';

// The event log's filters as SQL, written once for the list (event-reads.ts listEvents: /v1 and
// the panel) and the bulk replay (bulk-replay.ts), so "replay all failed of this filter" queues
// exactly the failed events the list shows.

export type EventFilter = z.infer<typeof WebhookEventFilter>;

const e = inboundEvents;
// inbound_event_text's rowids are account_id * 2^40 + id (drizzle/0016_event_search_rowids.sql):
// event ids are one sequence for every account, and must stay below the span.
const SPAN = sql.raw('1099511627776');
const LOW_BITS = sql.raw('1099511627775');

/**
 * The ids of the account's events whose text matches `q`: the FTS5 index read within the account's
 * rowid range alone, so another account's events are never even looked at.
 */
export function matching(keyHash: KeyRef, q: string): SQL {
  const first = sql`${accountOf(keyHash)} * ${SPAN}`;
  return sql`${e.id} in (select rowid & ${LOW_BITS} from inbound_event_text where inbound_event_text match ${eventMatch(q)} and rowid between ${first} and ${first} + ${LOW_BITS})`;
}

/**
 * The WHERE terms of webhook `id`'s events that `filter` keeps, the webhook's first (the indexes on
 * inbound_events lead with the account, which listQuery adds, and the webhook). `warnings <> '[]'` is written as the
 * partial index inbound_events_warned_idx states it, so the planner can walk that index.
 */
export function eventConditions(keyHash: KeyRef, id: number, filter: EventFilter): SQL[] {
  const { status, q, has_warnings } = filter;
  const terms: (SQL | undefined)[] = [
    eq(e.webhookId, id),
    status ? eq(e.status, status) : undefined,
    has_warnings === undefined
      ? undefined
      : has_warnings
        ? sql`${e.warnings} <> '[]'`
        : sql`${e.warnings} = '[]'`,
    q ? matching(keyHash, q) : undefined,
    ...rangeConditions(e.receivedAt, filter, 'received_at', e.receivedAt),
  ];
  return terms.filter((t): t is SQL => t !== undefined);
}

/** The terms above and the account's, as one WHERE. */
export const eventWhere = (keyHash: KeyRef, id: number, filter: EventFilter): SQL | undefined =>
  and(eq(e.accountId, accountOf(keyHash)), ...eventConditions(keyHash, id, filter));
