import { createRoute, type z } from '@hono/zod-openapi';
import { list, one } from '../schemas/common';
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
} from './openapi';

const security = [{ bearerAuth: [] }];

/** The header of every list page that has a next one. */
export const linkHeader = {
  Link: { description: '`<url>; rel="next"` when there is a next page', schema: { type: 'string' as const } },
};

/** The four routes every `/v1` resource has, described once for the OpenAPI document. */
export function resourceRoutes<
  R extends z.ZodType,
  Q extends z.ZodObject,
  C extends z.ZodType,
  U extends z.ZodType,
>(
  names: { tag: string; one: string; schema: string; plural: string; conflicts?: boolean },
  schemas: { resource: R; query: Q; create: C; update: U },
) {
  const tags = [names.tag];
  const single = one(schemas.resource, names.schema);
  const ids = {
    list: `list${names.plural}`,
    get: `get${names.schema}`,
    create: `create${names.schema}`,
    update: `update${names.schema}`,
  };
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
      summary: `Get a ${names.one}`,
      parameters: [bookmarkParam],
      request: { params: IdParam },
      responses: {
        200: jsonContent(single, `The ${names.one}`),
        ...errorResponses(400, 404, 429),
      },
    }),
    create: createRoute({
      method: 'post',
      path: '/',
      operationId: ids.create,
      tags,
      security,
      summary: `Create a ${names.one}`,
      middleware: [jsonGuard] as const,
      parameters: [idempotencyParam],
      request: { body: jsonBody(schemas.create) },
      responses: {
        201: {
          ...jsonContent(single, 'Created', {
            Location: { description: 'URL of the new resource', schema: { type: 'string' } },
            ...replayedHeader,
          }),
          links,
        },
        // 409 at least for a request with the same Idempotency-Key still running.
        ...errorResponses(...bodyErrors, 409, 429),
      },
    }),
    update: createRoute({
      method: 'put',
      path: '/{id}',
      operationId: ids.update,
      tags,
      security,
      summary: `Update a ${names.one} (partial: absent fields stay, null clears)`,
      middleware: [jsonGuard] as const,
      request: { params: IdParam, body: jsonBody(schemas.update) },
      responses: {
        200: jsonContent(single, `The updated ${names.one}`),
        ...errorResponses(...bodyErrors, 404, 429, ...conflicts),
      },
    }),
  };
}
