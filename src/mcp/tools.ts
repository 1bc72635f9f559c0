import { allows, scopeOfRoute } from '../core/scopes';
import { TOOLS, type ToolSpec } from './catalogue';
import { type Json, type OpenApiDocument, type Operation, operationsOf } from './operations';

/** A tool of the catalogue with its `/v1` operations, by value of `resource` ('' for just one). */
export type Tool = { spec: ToolSpec; operations: Readonly<Record<string, Operation>> };

/** The catalogue against the document: a tool naming an operation the document lacks stops here. */
export function toolsOf(doc: OpenApiDocument): Tool[] {
  const all = operationsOf(doc);
  const find = (id: string) => {
    const operation = all.get(id);
    if (!operation) throw new Error(`MCP tool over ${id}: the OpenAPI document has no such operation`);
    return operation;
  };
  return TOOLS.map((spec) => ({
    spec,
    operations:
      typeof spec.operation === 'string'
        ? { '': find(spec.operation) }
        : Object.fromEntries(Object.entries(spec.operation).map(([key, id]) => [key, find(id)])),
  }));
}

/**
 * The tools a key holding `scopes` (null: full access) may call, each with only the operations it
 * may call: the scope of each is the one `/v1` checks on its method and path (src/core/scopes.ts).
 */
export function visibleTools(tools: readonly Tool[], scopes: readonly string[] | null): Tool[] {
  return tools.flatMap((tool) => {
    const allowed = Object.entries(tool.operations).filter(([, op]) => {
      // A path the rule does not know needs full access, as on /v1.
      const scope = scopeOfRoute(op.method, op.path);
      return allows(scopes, scope === undefined ? '*:*' : scope);
    });
    return allowed.length > 0 ? [{ spec: tool.spec, operations: Object.fromEntries(allowed) }] : [];
  });
}

/** The kind a tool over several operations is called with: `''` for a tool over just one. */
export const choiceOf = (spec: ToolSpec) =>
  typeof spec.operation === 'string' ? undefined : (spec.choice ?? 'resource');

/** An operation's own arguments: its parameters' (path, query, header) and its body's. */
function partsOf(op: Operation) {
  const params = new Set(op.params.map((param) => param.name));
  const pick = (inParams: boolean) =>
    Object.fromEntries(Object.entries(op.properties).filter(([name]) => params.has(name) === inParams));
  return {
    params: pick(true),
    body: pick(false),
    paramsRequired: op.required.filter((name) => params.has(name)),
    bodyRequired: op.required.filter((name) => !params.has(name)),
  };
}

/** The argument's schema, with the tool's note on an `id` the document does not describe. */
const noted = (spec: ToolSpec, name: string, schema: Json): Json =>
  name === 'id' && !schema.description
    ? { ...schema, description: spec.idNote ?? `The ${spec.noun}'s id` }
    : schema;

/**
 * The tool's input schema: the parameters and body fields of its operation as the OpenAPI document
 * describes them, less what the tool fixes; `resource` first for a tool over several operations
 * alike, or each kind's body fields as an object under its name (a tool over several unlike ones).
 */
export function inputSchemaOf({ spec, operations }: Tool): Json {
  const choices = Object.keys(operations);
  const [first] = Object.values(operations);
  if (!first) throw new Error(`MCP tool ${spec.name} has no operation`);
  const fixed = new Set(Object.keys(spec.fixedQuery ?? {}));
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  const choice = choiceOf(spec);
  if (choice === 'resource') {
    properties.resource = { type: 'string', enum: choices, description: 'What kind of record' };
    required.push('resource');
  }
  const shared = choice === 'nested' ? partsOf(first) : undefined;
  const own = shared ? shared.params : first.properties;
  for (const [name, schema] of Object.entries(own)) {
    if (!fixed.has(name)) properties[name] = noted(spec, name, schema);
  }
  required.push(...(shared ? shared.paramsRequired : first.required).filter((name) => !fixed.has(name)));
  for (const [kind, op] of shared ? Object.entries(operations) : []) {
    const { body, bodyRequired } = partsOf(op);
    properties[kind] = {
      type: 'object',
      description: `The ${kind}'s fields (give exactly one kind)`,
      properties: body,
      ...(bodyRequired.length > 0 && { required: bodyRequired }),
      additionalProperties: false,
    };
  }
  return { type: 'object', properties, required: [...new Set(required)], additionalProperties: false };
}

/**
 * The tool's output schema: its operation's success answer as the OpenAPI document describes it
 * (the same zod contract `/v1` answers with), one of them for a tool over several operations;
 * undefined when an operation declares none (the tool then returns structured content unannounced).
 */
export function outputSchemaOf({ operations }: Tool): Json | undefined {
  const outputs = Object.values(operations).map((op) => op.output);
  if (outputs.some((output) => output?.type !== 'object')) return undefined;
  // One answer for several operations alike (every record's history): said once.
  const distinct = [...new Map(outputs.map((output) => [JSON.stringify(output), output])).values()];
  const [only] = distinct;
  return distinct.length === 1 ? only : { type: 'object', anyOf: distinct };
}
