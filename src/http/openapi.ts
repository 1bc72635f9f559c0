import { OpenAPIHono, z } from '@hono/zod-openapi';
import { fieldErrors } from '../contracts/field-errors';
import { ProblemSchema } from '../contracts/problem';
import { type FieldError, invalid, notFound } from '../core/errors';
import { inner, POSITIVE_ID } from '../core/filters';
import type { AppEnv } from '../env';
import { BOOKMARK, BOOKMARK_HEADER } from './bookmark';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY, REPLAYED_HEADER } from './idempotency-claim';
import { badRequest } from './problem';
import { API_RATE_POLICY, RATE_LIMIT_PERIOD_S } from './rate-limit';

/**
 * Whether the query string holds a parameter with no name (`?=open`, `a=1&=x`): as URLSearchParams
 * splits it, a piece between `&`s that starts with `=` (an empty piece is no parameter at all).
 */
export function hasNamelessParam(url: string): boolean {
  const hash = url.indexOf('#');
  const end = hash < 0 ? url.length : hash;
  const start = url.indexOf('?');
  if (start < 0 || start > end) return false;
  const query = url.slice(start + 1, end);
  return query.startsWith('=') || query.includes('&=');
}

/**
 * Routers share one validation policy: a bad path id is a 404 (no such resource), a bad query
 * is a 400, and a well-formed body that breaks a rule is a 422.
 */
export function router() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: async (result, c) => {
      // Hono's query parser drops a parameter without a name (`?=open`), so the strict schema never
      // sees it; it is as unknown as any other, and a filter the client meant must not go missing.
      if (result.target === 'query' && hasNamelessParam(c.req.url)) {
        throw badRequest('invalid_query', 'The query string is not valid; see errors.', [
          { path: '', code: 'unknown_field', message: 'A query parameter has no name.' },
        ]);
      }
      if (result.target === 'query') {
        const others = result.success ? [] : fieldErrors(result.error, c.req.query());
        const unknown = others.filter(({ code }) => code === 'unknown_field').map(({ path }) => path);
        // Refused even when the schema would take the array: every handler reads one value per name.
        const repeated = repeatedParams(c.req.queries()).filter(({ path }) => !unknown.includes(path));
        if (repeated.length > 0) {
          const names = repeated.map(({ path }) => path);
          throw badRequest(
            'invalid_query',
            `The query string gives ${names.join(', ')} more than once; see errors.`,
            [...repeated, ...others.filter((error) => !names.includes(error.path))],
          );
        }
      }
      if (result.success) return;
      if (result.target === 'param') throw notFound();
      if (result.target === 'json') throw invalid(fieldErrors(result.error, await c.req.json()));
      const errors = fieldErrors(result.error, c.req.query());
      throw badRequest('invalid_query', 'The query string is not valid; see errors.', errors);
    },
  });
}

/** A field error for each query parameter given more than once. */
function repeatedParams(queries: Record<string, string[]>): FieldError[] {
  return Object.entries(queries)
    .filter(([, values]) => values.length > 1)
    .map(([name, values]) => ({
      path: name,
      code: 'repeated',
      message: `Given ${values.length} times; give it once (a parameter that takes several values takes them comma-separated, e.g. owner_id=3,7).`,
    }));
}

/** A path parameter holding a row id. */
export const pathId = (name: string) =>
  z
    .string()
    .regex(POSITIVE_ID)
    .transform(Number)
    .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER))
    .openapi({ param: { name, in: 'path' }, type: 'integer', example: 42 });

export const IdParam = z.object({ id: pathId('id') });

const text = (description: string) => ({ description, schema: { type: 'string' as const } });

/** Headers on every response. */
export const traceHeaders = {
  'X-Request-Id': text("The client's X-Request-Id when it sent one, else a generated id"),
  'Server-Timing': text('`d1;dur=<ms>;desc="<n> round trips", total;dur=<ms>` (`"1 round trip"` for one)'),
  [BOOKMARK_HEADER]: text(
    'The D1 bookmark after this request, when it used the database. Send it back on a later read to see at least this state',
  ),
};

/** Reads take the bookmark of an earlier response, to read at least what that request saw or wrote. */
export const bookmarkParam = {
  name: BOOKMARK_HEADER,
  in: 'header' as const,
  required: false,
  description:
    'A bookmark from an earlier response: this read sees at least that state (read-your-writes). Malformed: 400 `invalid_bookmark`',
  // Empty is allowed: no bookmark yet (see bookmarkGuard).
  schema: { type: 'string' as const, pattern: `^(?:${inner(BOOKMARK)})?$` },
};

/** An Idempotency-Key, on `/v1` POSTs and on ingest alike. */
export const idempotencyKeySchema = {
  type: 'string' as const,
  minLength: 1,
  maxLength: 255,
  pattern: IDEMPOTENCY_KEY.source,
};

/** Every `/v1` POST takes an Idempotency-Key (see idempotency.ts). */
export const idempotencyParam = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: for 24 hours a repeat with the same key and request gets the first response again (with `Idempotent-Replayed: true`) and changes nothing. The same key with another path or body, or from another API key of the account (a stored answer is replayed only to the key that made it), is a 422 `idempotency_key_reused`; a repeat while the first is still running is a 409 `idempotency_key_in_use`. 1 to 255 printable ASCII characters, else 400 `invalid_idempotency_key`',
  schema: idempotencyKeySchema,
};

/** The header of a response replayed for an Idempotency-Key. */
export const replayedHeader = {
  [REPLAYED_HEADER]: text(
    '`true` when this is the stored response of an earlier request with the same Idempotency-Key',
  ),
};

const problem = (description: string, headers = {}) => ({
  description,
  headers: { ...traceHeaders, ...headers },
  content: { 'application/problem+json': { schema: ProblemSchema } },
});

const allErrors = {
  400: problem(
    'Malformed JSON, a body that is not an object, a bad query, or (on /v1) a malformed X-D1-Bookmark',
  ),
  401: problem(
    'Missing, malformed, unknown, revoked or expired API key (`api_key_expired` for the last; on /admin: admin token)',
    { 'WWW-Authenticate': text('`Bearer`') },
  ),
  403: problem(
    'The API key lacks the scope this operation needs: `insufficient_scope`, naming it in `required_scope`',
    { 'WWW-Authenticate': text('`Bearer error="insufficient_scope", scope="<scope>"`') },
  ),
  404: problem('Unknown route or id (ids of other accounts included)'),
  409: problem(
    'A uniqueness rule, a state that does not allow it, a concurrent change (read again and retry), or a request with the same Idempotency-Key still running',
  ),
  413: problem('Body over 1 MiB (on a route without a body: only with an Idempotency-Key, which hashes it)'),
  415: problem('POST/PUT without a JSON content type'),
  422: problem(
    'A well-formed body that breaks a rule (an unknown or read-only field included: `errors[].code` `unknown_field`, `read_only`), or an Idempotency-Key reused for another request',
  ),
  429: problem(`Over the API key's rate limit; retry after ${RATE_LIMIT_PERIOD_S} seconds`, {
    'Retry-After': text("Seconds to wait before retrying: the rate limit's window"),
    RateLimit: text(
      `The policy broken, with nothing left of it for at most the window (\`"key";r=0;t=${RATE_LIMIT_PERIOD_S}\`; draft-ietf-httpapi-ratelimit-headers). Every \`/v1\` answer also names its policies in \`RateLimit-Policy\` (\`${API_RATE_POLICY}\`)`,
    ),
  }),
  500: problem('Unexpected failure, logged with the request id'),
} as const;

type ErrorStatus = keyof typeof allErrors;

/** The 403 of every operation that needs a scope, added where scopes are stated (src/http/scopes.ts). */
export const forbiddenResponse = allErrors[403];

/** The problem responses a route can give, for its OpenAPI description. */
export function errorResponses<const S extends ErrorStatus>(
  ...statuses: S[]
): Pick<typeof allErrors, S | 401 | 500> {
  const picked = [...statuses, 401, 500] as const;
  return Object.fromEntries(picked.map((status) => [status, allErrors[status]])) as Pick<
    typeof allErrors,
    S | 401 | 500
  >;
}

/** Statuses of any route that takes a JSON body, beyond its own rules. */
export const bodyErrors = [400, 413, 415, 422] as const;

export const jsonContent = <T extends z.ZodType>(schema: T, description: string, headers = {}) => ({
  description,
  headers: { ...traceHeaders, ...headers },
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});
