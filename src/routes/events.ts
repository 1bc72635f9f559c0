import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ChangeEventPage, EventQuery, HistoryQuery } from '../contracts/events';
import { fromBase64url, textToBase64url } from '../core/base64url';
import { notFound } from '../core/errors';
import type { JournalRecordType, TrashTable } from '../db/schema';
import type { AppEnv } from '../env';
import { bookmarkParam, errorResponses, IdParam, jsonContent, router } from '../http/openapi';
import { badRequest } from '../http/problem';
import { urlOf } from '../http/urls';
import { type EntryPage, type EntryRow, feedPage, historyPage } from '../journal/reads';
import { presentEntry } from '../model/events';
import { resourceByKind } from '../model/resources';

// A cursor is the sort and the `seq` of the page's last entry: seq grows in commit order, so a
// poller's next page holds exactly the entries committed after it.
const encodeCursor = (sort: string, seq: number) => textToBase64url(JSON.stringify([sort, seq]));

function pageOf(
  query: { sort?: string | undefined; cursor?: string | undefined; limit: number },
  newest: boolean,
) {
  const sort = query.sort ?? (newest ? '-occurred_at' : 'occurred_at');
  let after: number | undefined;
  if (query.cursor !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(
        new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(query.cursor)),
      );
    } catch {
      parsed = undefined;
    }
    if (
      !Array.isArray(parsed) ||
      parsed[0] !== sort ||
      !Number.isSafeInteger(parsed[1]) ||
      parsed.length !== 2
    )
      throw badRequest('invalid_cursor', 'The cursor is not one this API issued for this sort.');
    after = parsed[1] as number;
  }
  const page: EntryPage = { descending: sort.startsWith('-'), after, limit: query.limit };
  return {
    page,
    answer(c: Context<AppEnv>, rows: EntryRow[]) {
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      const last = shown.at(-1);
      // Oldest first, the feed never ends: the cursor after the last entry (or the one given, on an
      // empty page) is where the next poll resumes. Newest first, the last page has none.
      const resume = last ? encodeCursor(sort, last.seq) : (query.cursor ?? encodeCursor(sort, 0));
      const next = more && last ? encodeCursor(sort, last.seq) : page.descending ? null : resume;
      if (more && next) {
        const url = new URL(c.req.url);
        url.searchParams.set('cursor', next);
        c.header('Link', `<${urlOf(c, url.pathname + url.search, url)}>; rel="next"`);
      }
      return { data: shown.map(presentEntry), meta: { limit: query.limit, next_cursor: next } };
    },
  };
}

const listEvents = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listEvents',
  tags: ['Events'],
  security: [{ bearerAuth: [] }],
  summary: "The account's change feed",
  description:
    'Every change to a company, contact, deal, task or user, whatever made it (the API, a webhook flow, the panel, the cron, an erasure), newest first by default. Poll with `sort=occurred_at` and the last `next_cursor` to read each change once, in commit order. Entries are kept 30 days (`JOURNAL_RETENTION_DAYS`). A key sees the entries of the records it may read (`contacts:read` for contact entries, ...).',
  parameters: [bookmarkParam],
  request: { query: EventQuery },
  responses: { 200: jsonContent(ChangeEventPage, 'One page'), ...errorResponses(400, 429) },
});

export const eventsRouter = router().openapi(listEvents, async (c) => {
  const q = c.req.valid('query');
  const { page, answer } = pageOf(q, true);
  const rows = await feedPage(
    c.get('db'),
    c.get('keyHash'),
    {
      types: q.type,
      recordType: q.record_type,
      recordIds: q.record_id,
      occurredAt: {
        gte: q.occurred_at__gte,
        lte: q.occurred_at__lte,
        gt: q.occurred_at__gt,
        lt: q.occurred_at__lt,
      },
    },
    page,
  );
  return c.json(answer(c, rows), 200);
});

/** `GET /v1/<resource>/{id}/history`: one record's timeline, oldest first by default. */
export function historyRouter(type: JournalRecordType) {
  const { spec, names } = resourceByKind[type];
  const table: TrashTable = spec.table;
  const { tag, one } = names;
  const route = createRoute({
    method: 'get',
    path: '/{id}/history',
    operationId: `get${tag.slice(0, -1).replace(/ie$/, 'y')}History`,
    tags: [tag],
    security: [{ bearerAuth: [] }],
    summary: `The ${one}'s change history`,
    description: `Every version of the ${one} the journal keeps (30 days), oldest first: what changed, from what, and who changed it. Also for a ${one} in the trash or erased.`,
    parameters: [bookmarkParam],
    request: { params: IdParam, query: HistoryQuery },
    responses: { 200: jsonContent(ChangeEventPage, 'One page'), ...errorResponses(400, 404, 429) },
  });
  return router().openapi(route, async (c) => {
    const q = c.req.valid('query');
    const { page, answer } = pageOf(q, false);
    const id = c.req.valid('param').id;
    const { exists, rows } = await historyPage(c.get('db'), c.get('keyHash'), { type, table, id }, page);
    if (!exists) throw notFound();
    return c.json(answer(c, rows), 200);
  });
}
