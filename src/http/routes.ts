import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { type Id, list, one, oneWritten } from '../contracts/common';
import { jsonGuard } from './middleware';
import {
  bodyErrors,
  bookmarkParam,
  errorResponses,
  IdParam,
  idempotencyParam,
  jsonBody,
  jsonContent,
  replayedHeader,
  traceHeaders,
} from './openapi';

const security = [{ bearerAuth: [] }];

/**
 * `a` or `an` before a resource's name in a sentence, by its sound: a vowel, but not the `u` said
 * "you" (`a user`, `an inbound webhook`).
 */
const article = (noun: string) => (/^(?![uU](?:s|ni))[aeiou]/i.test(noun) ? 'an' : 'a');

/** The header of every list page that has a next one. */
export const linkHeader = {
  Link: { description: '`<url>; rel="next"` when there is a next page', schema: { type: 'string' as const } },
};

/** The names a resource's routes are described with. */
type ResourceNames = { tag: string; one: string; schema: string; plural: string; conflicts?: boolean };

/** The operation ids of a resource's four routes. */
const operationIds = (names: ResourceNames) => ({
  list: `list${names.plural}`,
  get: `get${names.schema}`,
  create: `create${names.schema}`,
  update: `update${names.schema}`,
});

/** A resource's POST: 201 with the resource, its `Location`, and links to get and update it. */
function createRouteOf<R extends z.ZodObject<{ id: typeof Id }>, C extends z.ZodType>(
  names: ResourceNames,
  schemas: { resource: R; create: C },
) {
  const ids = operationIds(names);
  const a = article(names.one);
  // Where a client goes from the 201 of a create: the new resource's id, by operation.
  const links = Object.fromEntries(
    (['get', 'update'] as const).map((op) => [
      ids[op],
      {
        operationId: ids[op],
        parameters: { id: '$response.body#/data/id' },
        description: `The ${names.one} just created`,
      },
    ]),
  );
  return createRoute({
    method: 'post',
    path: '/',
    operationId: ids.create,
    tags: [names.tag],
    security,
    summary: `Create ${a} ${names.one}`,
    description: `Creates ${a} ${names.one} from its writable fields and answers 201 with it and its \`Location\`. A field the API sets or does not know is a 422 naming it (\`read_only\`, \`unknown_field\`). With an \`Idempotency-Key\`, a retry is safe.`,
    middleware: [jsonGuard] as const,
    parameters: [idempotencyParam],
    request: { body: jsonBody(schemas.create) },
    responses: {
      201: {
        ...jsonContent(one(schemas.resource, names.schema), 'Created', {
          Location: { description: 'URL of the new resource', schema: { type: 'string' } },
          ...replayedHeader,
        }),
        links,
      },
      // 409 at least for a request with the same Idempotency-Key still running.
      ...errorResponses(...bodyErrors, 409, 429),
    },
  });
}

/** The four routes every `/v1` resource has, described once for the OpenAPI document. */
export function resourceRoutes<
  R extends z.ZodObject<{ id: typeof Id }>,
  Q extends z.ZodObject,
  C extends z.ZodType,
  U extends z.ZodType,
>(names: ResourceNames, schemas: { resource: R; query: Q; create: C; update: U }) {
  const tags = [names.tag];
  const a = article(names.one);
  const ids = operationIds(names);
  // Only resources with a unique field, or whose updates are checked against the row, answer 409 to a PUT.
  const conflicts = names.conflicts ? ([409] as const) : [];
  return {
    list: createRoute({
      method: 'get',
      path: '/',
      operationId: ids.list,
      tags,
      security,
      summary: `List ${names.tag.toLowerCase()}`,
      description: `One page of the account's ${names.tag.toLowerCase()}. Filters combine with AND; \`sort\` orders the rows (ties broken by id); \`limit\` sets the page size and \`meta.next_cursor\` (also in the \`Link\` header) fetches the next page. An unknown or repeated parameter is a 400.`,
      parameters: [bookmarkParam],
      request: { query: schemas.query },
      responses: {
        200: jsonContent(list(schemas.resource, names.schema), 'One page', linkHeader),
        ...errorResponses(400, 429),
      },
    }),
    get: createRoute({
      method: 'get',
      path: '/{id}',
      operationId: ids.get,
      tags,
      security,
      summary: `Get ${a} ${names.one}`,
      description: `The ${names.one} with this id. Another account's id, or one that does not exist, is a 404.`,
      parameters: [bookmarkParam],
      request: { params: IdParam },
      responses: {
        200: jsonContent(one(schemas.resource, names.schema), `The ${names.one}`),
        ...errorResponses(400, 404, 429),
      },
    }),
    create: createRouteOf(names, schemas),
    update: createRoute({
      method: 'put',
      path: '/{id}',
      operationId: ids.update,
      tags,
      security,
      summary: `Update ${a} ${names.one} (partial: absent fields stay, null clears)`,
      description: `Changes only the fields sent: an absent field keeps its value and \`null\` clears an optional one. Answers the ${names.one} as it now is; to a key without the resource's \`:read\` scope, only its \`id\` and the fields sent (\`${names.schema}Written\`).`,
      middleware: [jsonGuard] as const,
      request: { params: IdParam, body: jsonBody(schemas.update) },
      responses: {
        200: jsonContent(oneWritten(schemas.resource, names.schema), `The updated ${names.one}`),
        ...errorResponses(...bodyErrors, 404, 429, ...conflicts),
      },
    }),
  };
}

/**
 * DELETE (to the trash) and restore, for the resources with a trash. `remove` is the DELETE's query
 * (contacts take `erase`); none by default, so a parameter meant for another route is a 400, not
 * ignored on a delete.
 */
export function trashRoutes<R extends z.ZodObject<{ id: typeof Id }>, Q extends z.ZodObject>(
  names: { tag: string; one: string; schema: string; removeNote?: string },
  schemas: { resource: R; remove?: Q },
) {
  const tags = [names.tag];
  return {
    remove: createRoute({
      method: 'delete',
      path: '/{id}',
      operationId: `delete${names.schema}`,
      tags,
      security,
      summary: `Delete ${article(names.one)} ${names.one}: to the trash, restorable for 30 days`,
      ...(names.removeNote && { description: names.removeNote }),
      request: { params: IdParam, query: schemas.remove ?? z.strictObject({}) },
      responses: {
        204: { description: 'In the trash', headers: traceHeaders },
        ...errorResponses(400, 404, 429),
      },
    }),
    restore: createRoute({
      method: 'post',
      path: '/{id}/restore',
      operationId: `restore${names.schema}`,
      tags,
      security,
      summary: `Restore ${article(names.one)} ${names.one} from the trash (within 30 days of its deletion)`,
      description: `Takes the ${names.one} out of the trash, as it was when deleted, and answers it (to a key without the resource's \`:read\` scope, only its \`id\` and \`deleted_at\`). 404 when it is not in the account's trash (never deleted, or deleted more than 30 days ago); 409 when what it needs is itself in the trash.`,
      parameters: [idempotencyParam],
      request: { params: IdParam },
      responses: {
        200: jsonContent(
          oneWritten(schemas.resource, names.schema),
          `The restored ${names.one}`,
          replayedHeader,
        ),
        // 409: what the row needs is itself in the trash (a task's deal), or the Idempotency-Key is in use.
        ...errorResponses(400, 404, 409, 413, 422, 429),
      },
    }),
  };
}

/**
 * The maker of a resource's routes beyond the four (`/{id}/events`, `/{id}/rotate-secret`, …):
 * its tag and the bearer scheme, the bookmark on a GET, the Idempotency-Key on a POST.
 */
export const subRoutes =
  (tag: string) =>
  <const R extends Omit<RouteConfig, 'tags' | 'security'>>(config: R) =>
    createRoute({
      ...config,
      tags: [tag],
      security,
      ...(config.method === 'get' && { parameters: [bookmarkParam] }),
      ...(config.method === 'post' && { parameters: [idempotencyParam] }),
    });
