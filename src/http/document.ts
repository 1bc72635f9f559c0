/**
 * The last pass over the generated OpenAPI document, for what zod-to-openapi cannot say and every
 * client generator and /docs need:
 * - a `$ref` with a description of its own is `{ $ref, description }` (OpenAPI 3.1 allows siblings),
 *   not `allOf: [{ $ref }, { description }]`, which openapi-python-client refuses ("Cannot take allOf
 *   a non-object") and which other generators turn into a needless wrapper type;
 * - an optional parameter's example moves to the schema's `examples` (JSON Schema's array): Swagger
 *   UI's "Try it out" pre-fills a parameter's `example`, `examples` and its schema's `example`, so
 *   `owner_id=3,7` went out with every Execute; it never reads `schema.examples`.
 */

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ allOf: [{ $ref }, { description }] }` -> `{ $ref, description }`, wherever it occurs. */
function inlineRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inlineRefs);
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) out[key] = inlineRefs(value);
  const all = out.allOf;
  if (!Array.isArray(all) || !isNode(all[0]) || typeof all[0].$ref !== 'string') return out;
  const [ref, ...rest] = all as Node[];
  // Only plain annotations merge into siblings; a real constraint keeps its allOf.
  const notes = ['description', 'title', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'default'];
  if (!rest.every((part) => isNode(part) && Object.keys(part).every((k) => notes.includes(k)))) return out;
  const { allOf: _, ...siblings } = out;
  return Object.assign({ $ref: ref?.$ref }, siblings, ...rest);
}

/** An optional parameter keeps its example only where a request cannot pick it up. */
function examplesOfOptional(parameter: Node): Node {
  if (parameter.required === true) return parameter;
  const { example, examples: _, ...rest } = parameter;
  const schema = isNode(rest.schema) ? rest.schema : undefined;
  if (!schema) return rest;
  const { example: schemaExample, ...others } = schema;
  const given = example ?? schemaExample;
  return { ...rest, schema: given === undefined ? others : { ...others, examples: [given] } };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function polish<D extends object>(document: D): D {
  const doc = inlineRefs(document) as Node;
  const paths = isNode(doc.paths) ? doc.paths : {};
  for (const item of Object.values(paths)) {
    if (!isNode(item)) continue;
    for (const operation of [item, ...METHODS.map((m) => item[m])]) {
      if (isNode(operation) && Array.isArray(operation.parameters)) {
        operation.parameters = operation.parameters.map((p) => (isNode(p) ? examplesOfOptional(p) : p));
      }
    }
  }
  return doc as D;
}
