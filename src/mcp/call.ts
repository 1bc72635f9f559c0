import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Problem } from '../contracts/problem';
import { type DomainError, type FieldError, insufficientScope, invalid } from '../core/errors';
import { allows, scopeOfRoute } from '../core/scopes';
import { asApiError } from '../http/problem';
import { isObject, type Operation } from './operations';
import { choiceOf, type Tool } from './tools';

/** A `/v1` request a tool call stands for: path and query, method, headers and body. */
export type V1Request = { path: string; method: string; headers: Record<string, string>; body?: string };

type Args = Record<string, unknown>;

/** A value as a query or path parameter: a list comma-separated, as `/v1` takes ids. */
const asText = (value: unknown): string => {
  if (Array.isArray(value)) return value.map(asText).join(',');
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
};

/** The kind the call names: its `resource` argument, or the one kind whose fields it gives. */
function kindOf(tool: Tool, args: Args): string | FieldError {
  const kinds = Object.keys(tool.operations);
  if (choiceOf(tool.spec) === 'resource') {
    // An own argument only: never one a `__proto__` argument would lend.
    const choice = Object.hasOwn(args, 'resource') ? args.resource : undefined;
    if (typeof choice === 'string' && Object.hasOwn(tool.operations, choice)) return choice;
    return {
      path: 'resource',
      code: 'invalid_value',
      message: `resource must be one of: ${kinds.join(', ')}.`,
    };
  }
  const given = kinds.filter((kind) => Object.hasOwn(args, kind));
  const [only] = given;
  if (given.length === 1 && only !== undefined) return only;
  const message = `Give the fields of exactly one of: ${kinds.join(', ')} (e.g. {"${kinds[0]}": {…}}).`;
  return { path: given[1] ?? '', code: given.length ? 'invalid_value' : 'required', message };
}

/**
 * The `/v1` request of a call: each argument where its parameter goes, the tool's fixed query
 * values, and every other argument in the body (or, for a read, the query), so a field `/v1` does not
 * know meets `/v1`'s own answer to it (422 `unknown_field`, 400 for a parameter). A tool over unlike
 * kinds sends the kind's object as the body, and refuses here any other argument beside it. Only
 * what `/v1` cannot answer itself is refused here: no operation, no value for a path parameter.
 */
export function requestOf(tool: Tool, args: Args): V1Request | FieldError[] {
  const only = tool.operations[''];
  const kind = only ? '' : kindOf(tool, args);
  if (typeof kind !== 'string') return [kind];
  const operation = only ?? (tool.operations[kind] as Operation);
  const rest = new Map(Object.entries(args));
  rest.delete(choiceOf(tool.spec) === 'nested' ? kind : 'resource');
  const errors: FieldError[] = [];
  const query = new URLSearchParams(tool.spec.fixedQuery);
  const headers: Record<string, string> = {};
  let path = operation.path;
  for (const param of operation.params) {
    const value = rest.get(param.name);
    rest.delete(param.name);
    if (param.in === 'path') {
      if (value === undefined || value === null || value === '') {
        errors.push({ path: param.name, code: 'required', message: 'This field is required.' });
      }
      path = path.replace(`{${param.name}}`, encodeURIComponent(asText(value)));
    } else if (value !== undefined) {
      if (param.in === 'query') query.append(param.name, asText(value));
      else if (param.header) headers[param.header] = asText(value);
    }
  }
  let fields = Object.fromEntries(rest);
  if (choiceOf(tool.spec) === 'nested') {
    for (const name of rest.keys()) {
      errors.push({ path: name, code: 'unknown_field', message: `Unknown field "${name}".` });
    }
    const given = args[kind];
    if (isObject(given)) fields = given;
    else errors.push({ path: kind, code: 'invalid_type', message: `The ${kind}'s fields, as an object.` });
  }
  if (errors.length > 0) return errors;
  let body: string | undefined;
  if (operation.body) {
    // Object.entries and fromEntries keep a `__proto__` argument an own key, and so does JSON.parse
    // in a kind's object: `/v1` then names it as unknown.
    body = JSON.stringify(fields);
    headers['Content-Type'] = 'application/json';
  } else {
    for (const [name, value] of rest) if (value !== undefined) query.append(name, asText(value));
  }
  const search = query.size > 0 ? `?${query}` : '';
  return { path: `${path}${search}`, method: operation.method, headers, ...(body ? { body } : {}) };
}

/** The problem of a refusal made before `/v1`, worded as `/v1` words it. */
const problemOf = (err: DomainError): Problem =>
  (asApiError(err) as NonNullable<ReturnType<typeof asApiError>>).toProblem();

/** The problem a call refused before `/v1`, as `/v1` words a body that breaks its rules. */
export const refusal = (errors: FieldError[]): Problem => problemOf(invalid(errors));

/**
 * `/v1`'s 403 for a call its OAuth access token may not make: the token's request narrowed the
 * grant's scopes (src/oauth/server.ts) and the key behind it would allow the call. Undefined when
 * the token allows it, or for a key or a token that narrowed nothing (`narrowed` undefined).
 */
export function beyondToken(
  narrowed: readonly string[] | undefined,
  request: V1Request,
): Problem | undefined {
  if (!narrowed) return undefined;
  const scope = scopeOfRoute(request.method, request.path.split('?')[0] ?? '');
  const needed = scope === undefined ? '*:*' : scope;
  if (allows(narrowed, needed)) return undefined;
  const detail = `This connection's access token lacks the scope ${needed}, which this tool needs: its token request asked for fewer scopes than the connection was granted.`;
  return problemOf(insufficientScope(needed ?? '', detail));
}

type Page = { data?: unknown; meta?: { limit?: number; next_cursor?: string | null } };

/**
 * What the page's cursor means. An oldest-first change feed or history never ends: a page short of
 * its limit still carries the cursor to poll from, and saying "more" there would send an assistant
 * paging round an empty feed.
 */
function cursorNote(count: number, meta: Page['meta']): string {
  const next = meta?.next_cursor;
  if (!next) return '; no more pages';
  const full = meta?.limit === undefined || count >= meta.limit;
  return full ? `; more with cursor "${next}"` : `; nothing more yet (poll later with cursor "${next}")`;
}

/** One line on what came back: counts and ids, never a record's text (that stays data). */
function summary(tool: Tool, args: Args, body: Page, replayed: boolean): string {
  const { noun, plural } = tool.spec;
  if (Array.isArray(body.data)) {
    const count = body.data.length;
    return `${count} ${count === 1 ? noun : plural}${cursorNote(count, body.meta)}.`;
  }
  const record = body.data as { id?: unknown } | undefined;
  const kind = tool.operations[''] ? noun : (kindOf(tool, args) as string);
  return `${kind} ${String(record?.id ?? '')}${replayed ? ' (a replay of the first answer to this idempotency_key)' : ''}.`;
}

/**
 * A problem of a tool over unlike kinds with its body fields' paths as the call gave them
 * (`deal.name`, not `/v1`'s `name`); a parameter's (`id`) stays as it is.
 */
function inKind(tool: Tool, args: Args, problem: Problem): Problem {
  if (choiceOf(tool.spec) !== 'nested' || !problem.errors) return problem;
  const kind = kindOf(tool, args) as string;
  const params = new Set(tool.operations[kind]?.params.map((param) => param.name));
  const errors = problem.errors.map((error) =>
    params.has(error.path) ? error : { ...error, path: error.path ? `${kind}.${error.path}` : kind },
  );
  return { ...problem, errors };
}

/** A problem as the tool error's text: its message, code and each field's path. */
export function problemText(problem: Problem): string {
  const fields = (problem.errors ?? []).map((error) => `\n- ${error.path}: ${error.message} (${error.code})`);
  return `${problem.detail} (${problem.code}, HTTP ${problem.status})${fields.join('')}`;
}

/** A problem as a tool error: the assistant reads the text; a program reads the problem itself. */
export const toolError = (problem: Problem): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: problemText(problem) }],
  structuredContent: problem as unknown as Record<string, unknown>,
});

/**
 * `/v1`'s answer as the tool's result: its JSON as structured content, a one-line summary, and (as
 * the 2025-11-25 revision asks of a tool with structured content) the same JSON as text for clients
 * that read only text. A problem+json answer is a tool error.
 */
export async function resultOf(tool: Tool, args: Args, res: Response): Promise<CallToolResult> {
  // Read as text once: the text block is `/v1`'s own JSON, not a second serialization of it.
  const text = await res.text();
  const body = JSON.parse(text) as Page & Problem;
  if (!res.ok) return toolError(inKind(tool, args, body));
  const replayed = res.headers.get('Idempotent-Replayed') === 'true';
  return {
    content: [
      { type: 'text', text: summary(tool, args, body, replayed) },
      { type: 'text', text },
    ],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}
