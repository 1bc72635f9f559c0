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

/**
 * The tool's input schema: the parameters and body fields of its operation as the OpenAPI document
 * describes them, less what the tool fixes; `resource` first for a tool over several operations.
 */
export function inputSchemaOf({ spec, operations }: Tool): Json {
  const choices = Object.keys(operations);
  const [first] = Object.values(operations);
  if (!first) throw new Error(`MCP tool ${spec.name} has no operation`);
  const pathParams = first.params.filter((param) => param.in === 'path').map((param) => param.name);
  const fixed = new Set(Object.keys(spec.fixedQuery ?? {}));
  const kept = (name: string) =>
    !fixed.has(name) && (!spec.fields || pathParams.includes(name) || spec.fields.includes(name));
  const properties: Record<string, Json> = {};
  if (choices[0] !== '') {
    properties.resource = { type: 'string', enum: choices, description: 'What kind of record' };
  }
  for (const [name, schema] of Object.entries(first.properties)) {
    if (!kept(name)) continue;
    const note = name === 'id' && !schema.description ? (spec.idNote ?? `The ${spec.noun}'s id`) : undefined;
    properties[name] = note ? { ...schema, description: note } : schema;
  }
  const required = [
    ...(properties.resource ? ['resource'] : []),
    ...(spec.fields ? [...pathParams, ...spec.fields] : first.required.filter(kept)),
  ];
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
  const [only] = outputs;
  return outputs.length === 1 ? only : { type: 'object', anyOf: outputs };
}
