import { createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { BatchBody, batchResult } from '../contracts/batch';
import type { Id } from '../contracts/common';
import { type ScopeResource, writeScopes } from '../core/scopes';
import { KeyGrant } from '../db/key-grant';
import type { Extras, Viewed } from '../db/own';
import type { TrashTable } from '../db/schema';
import type { AppEnv } from '../env';
import { jsonGuard } from '../http/middleware';
import { bodyErrors, errorResponses, idempotencyParam, jsonBody, jsonContent, router } from '../http/openapi';
import { asApiError } from '../http/problem';
import { visibleAnswer } from '../http/visible';
import { type BatchResource, type Outcome, runBatch } from '../model/batch';
import { resources } from '../model/resources';

type Names = { tag: string; plural: string; schema: string; scope: ScopeResource };

/** An item's failure as the single call's problem (an unexpected one is the request's 500). */
function problemOf(error: unknown) {
  const api = asApiError(error);
  if (!api) throw error;
  return api;
}

/** `POST /v1/<resource>/batch` (docs/import-export.md). */
export function batchRouter<T extends TrashTable, C, U, X extends Extras, P extends { id: number }>(
  resource: BatchResource<T, C, U, X> & {
    names: Names;
    schema: z.ZodObject<{ id: typeof Id }>;
    present: (row: Viewed<T, X>, c: Context<AppEnv>) => P;
  },
) {
  const { names, schema, present } = resource;
  const route = createRoute({
    method: 'post',
    path: '/batch',
    operationId: `batch${names.plural}`,
    tags: [names.tag],
    security: [{ bearerAuth: [] }],
    summary: `Create, update or upsert up to 100 ${names.tag.toLowerCase()}`,
    description: `Each item is \`create\`, \`update\` (by \`id\`) or \`upsert\` (by natural key: found and updated with what is sent, or created), with relations by natural key where an id is taken. In two D1 round trips. Not atomic (the default): every item is tried; 200 when all succeeded, 207 when some failed, each item's record or the problem its single call would give, in request order. \`atomic: true\`: all or nothing; the first failing item's problem, with its \`index\`. Needs \`${names.scope}:insert\` for creates and \`${names.scope}:update\` for updates (both for upserts).`,
    middleware: [jsonGuard] as const,
    parameters: [idempotencyParam],
    request: { body: jsonBody(BatchBody) },
    responses: {
      200: jsonContent(batchResult(schema, names.schema), 'Every item written'),
      207: jsonContent(batchResult(schema, names.schema), 'Some items failed; each says why'),
      ...errorResponses(...bodyErrors, 403, 404, 409, 429),
    },
  });
  return router().openapi(route, async (c) => {
    const input = c.req.valid('json');
    const scopes = writeScopes(
      names.scope,
      input.items.map((item) => item.op),
    );
    const grant = c.get('keyHash');
    if (grant instanceof KeyGrant && scopes[0]) grant.rescope(scopes[0]);
    const outcomes = await runBatch(c.get('db'), grant, resource, input, scopes);
    const failed = outcomes.find((o): o is Extract<Outcome<unknown>, { error: unknown }> => 'error' in o);
    if (input.atomic && failed) {
      const api = problemOf(failed.error);
      const body = JSON.stringify({ ...api.toProblem(c.get('requestId')), index: failed.index });
      // The item's problem with its index: a problem+json body, which the route's typing does not describe.
      return c.body(body, api.status, {
        'Content-Type': 'application/problem+json',
        ...api.headers,
      }) as never;
    }
    const data = outcomes.map((o) => {
      if ('error' in o) {
        const api = problemOf(o.error);
        return { index: o.index, status: api.status, error: api.toProblem(c.get('requestId')) };
      }
      const sent = Object.keys(input.items[o.index]?.data ?? {});
      return {
        index: o.index,
        status: o.created ? 201 : 200,
        data: visibleAnswer(c, present(o.row, c), sent),
      };
    });
    // Each entry is one member of the result's union; TypeScript cannot tell which of a generic P.
    return c.json({ data: data as never[] }, failed ? 207 : 200);
  });
}

/** Each resource's batch, mounted under its path (src/index.ts). */
export const batchRouters = {
  users: batchRouter(resources.users),
  companies: batchRouter(resources.companies),
  contacts: batchRouter(resources.contacts),
  deals: batchRouter(resources.deals),
  tasks: batchRouter(resources.tasks),
};
