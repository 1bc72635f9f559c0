/** A JSON Schema, or any node of the OpenAPI document. */
export type Json = { [key: string]: unknown };

/** The parts of the OpenAPI 3.1 document (src/index.ts `openApiDocument`) a tool is made from. */
export type OpenApiDocument = { paths?: Record<string, unknown> };

/** Where a tool's argument goes in the `/v1` request. */
export type Param = { name: string; in: 'path' | 'query' | 'header'; header?: string };

/** One `/v1` operation as a tool calls it: its request's parts and the JSON Schema of each argument. */
export type Operation = {
  method: string;
  path: string;
  params: Param[];
  /** Whether the operation takes a JSON body: the arguments that are not parameters. */
  body: boolean;
  properties: Record<string, Json>;
  required: string[];
  /** The JSON Schema of its success answer (the first 2xx with a JSON body), when it has one. */
  output?: Json;
};

/**
 * Request headers a tool takes as arguments, by the argument's name. The others (the read
 * bookmark) carry nothing an assistant chooses.
 */
const HEADER_ARGS: Record<string, string> = { 'Idempotency-Key': 'idempotency_key' };

// OpenAPI's own keywords, not JSON Schema's: an assistant's client need not know them.
const OPENAPI_ONLY = new Set(['example', 'x-enum-varnames']);

/** A JSON object (not null, not an array): what the document's nodes and a message's parts are checked as. */
export const isObject = (node: unknown): node is Json =>
  node !== null && typeof node === 'object' && !Array.isArray(node);

function pointer(doc: unknown, ref: string): unknown {
  let node = doc;
  for (const raw of ref.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  if (node === undefined) throw new Error(`The OpenAPI document has no ${ref}`);
  return node;
}

/**
 * The node with every local `$ref` replaced by what it points to, so a tool's input schema stands
 * alone (clients of the 2025 revision do not all resolve references).
 */
function inline(doc: unknown, node: unknown, seen: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(doc, item, seen));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    if (seen.has(ref)) throw new Error(`${ref} refers to itself: a tool's schema cannot inline it`);
    return inline(doc, pointer(doc, ref), new Set(seen).add(ref));
  }
  return portable(
    Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => !OPENAPI_ONLY.has(key))
        .map(([key, value]) => [key, inline(doc, value, seen)]),
    ),
  );
}

// Kept beside the one branch that is not `null`: what describes the value as a whole.
const OUTER = new Set(['description', 'default', 'title', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * The schema in the spelling every client's dialect reads (the MCP Inspector's `--strict` check):
 * `type: [T, "null"]` becomes `anyOf: [{ type: T, … }, { type: "null" }]`, since clients that map
 * tools onto a single-`type` dialect (Gemini's function declarations) refuse or weaken the array
 * form; an empty `additionalProperties` schema becomes `true`, the same contract stated.
 */
function portable(node: Json): Json {
  const { type, additionalProperties } = node;
  const out =
    isObject(additionalProperties) && Object.keys(additionalProperties).length === 0
      ? { ...node, additionalProperties: true }
      : node;
  if (!Array.isArray(type) || !type.includes('null') || type.length !== 2) return out;
  const outer: Json = {};
  const inner: Json = { type: type.find((t) => t !== 'null') };
  for (const [key, value] of Object.entries(out)) {
    if (key === 'type') continue;
    if (OUTER.has(key)) outer[key] = value;
    else inner[key] = key === 'enum' && Array.isArray(value) ? value.filter((v) => v !== null) : value;
  }
  return { ...outer, anyOf: [inner, { type: 'null' }] };
}

/** The operation's parameters as arguments, with their descriptions on their schemas. */
function paramsOf(doc: OpenApiDocument, declared: unknown[]) {
  const params: Param[] = [];
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  for (const raw of declared) {
    const param = inline(doc, raw) as Json & { name: string; in: Param['in']; schema?: Json };
    const name = param.in === 'header' ? HEADER_ARGS[param.name] : param.name;
    if (name === undefined) continue;
    params.push({ name, in: param.in, ...(param.in === 'header' ? { header: param.name } : {}) });
    const description = param.description ?? param.schema?.description;
    properties[name] = { ...param.schema, ...(description ? { description } : {}) };
    if (param.required) required.push(name);
  }
  return { params, properties, required };
}

/** The inlined schema of the operation's first 2xx JSON answer: what a tool returns as structured content. */
function outputOf(doc: OpenApiDocument, responses: unknown): Json | undefined {
  if (!isObject(responses)) return undefined;
  const [, ok] = Object.entries(responses).find(([status]) => /^2\d\d$/.test(status)) ?? [];
  const answer = isObject(ok) ? inline(doc, ok) : undefined;
  const content = isObject(answer) ? answer.content : undefined;
  const json = isObject(content) ? content['application/json'] : undefined;
  return isObject(json) && isObject(json.schema) ? json.schema : undefined;
}

/** Every operation of the document, by its `operationId`. */
export function operationsOf(doc: OpenApiDocument): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(isObject(item) ? item : {})) {
      if (!isObject(raw) || typeof raw.operationId !== 'string') continue;
      const { params, properties, required } = paramsOf(doc, (raw.parameters as unknown[]) ?? []);
      const content = isObject(raw.requestBody) ? raw.requestBody.content : undefined;
      const json = isObject(content) ? content['application/json'] : undefined;
      const body = isObject(json) ? (inline(doc, json.schema) as Json) : undefined;
      if (body && isObject(body.properties)) Object.assign(properties, body.properties);
      if (body && Array.isArray(body.required)) required.push(...(body.required as string[]));
      const output = outputOf(doc, raw.responses);
      operations.set(raw.operationId, {
        method: method.toUpperCase(),
        path,
        params,
        body: body !== undefined,
        properties,
        required,
        ...(output && { output }),
      });
    }
  }
  return operations;
}
