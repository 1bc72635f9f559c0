import { createRoute } from '@hono/zod-openapi';
import { one } from '../contracts/common';
import { Usage, UsageQuery } from '../contracts/usage';
import { bookmarkParam, errorResponses, jsonContent, router } from '../http/openapi';
import { journalCount, journalRetentionDays } from '../journal/retention';
import { accountUsage } from '../webhooks/log/event-storage';

const usage = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getUsage',
  tags: ['Inbound webhooks'],
  security: [{ bearerAuth: [] }],
  summary: "The account's webhooks and event storage against their limits",
  description:
    'Event storage counts what the webhook events take up; over the quota, ingest answers 429 `event_storage_full`. Events older than the retention are deleted by the cron.',
  parameters: [bookmarkParam],
  request: { query: UsageQuery },
  responses: {
    200: jsonContent(one(Usage, 'Usage'), 'The usage now'),
    ...errorResponses(400, 429),
  },
});

export const usageRouter = router().openapi(usage, async (c) => {
  const db = c.get('db');
  const { usage, more } = await accountUsage(db, c.get('keyHash'), c.env, (account) =>
    journalCount(db, account),
  );
  const journal = { entries: more[0]?.n ?? 0, retention_days: journalRetentionDays(c.env) };
  return c.json({ data: { ...usage, change_journal: journal } }, 200);
});
