import type { Json } from './helpers';

/** Resolves a local JSON pointer (`#/a/b`, with `~1` and `~0` escapes) in `doc`; undefined if it leads nowhere. */
export function resolvePointer(doc: Json, ref: string): Json {
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = node[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** Follows local `$ref`s until the node is not one. */
export function deref(doc: Json, node: Json): Json {
  return typeof node?.$ref === 'string' ? deref(doc, resolvePointer(doc, node.$ref)) : node;
}
