type Node = string | string[] | { [key: string]: Node };

/** `lead[phone]`, `lead.phone` and `lead[phone][]` as the path they name, and whether it collects. */
function pathOf(name: string): { path: string[]; many: boolean } | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!m) return undefined;
  const brackets = [...(m[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((b) => b[1] ?? '');
  const many = brackets.at(-1) === '';
  const path = [
    ...(m[1] ?? '').split('.'),
    ...brackets.slice(0, many ? -1 : undefined).flatMap((b) => b.split('.')),
  ];
  return path.every(Boolean) ? { path, many } : undefined;
}

/**
 * An `application/x-www-form-urlencoded` body as the object a JSON sender would post, so a mapping
 * key reads both alike: `lead[phone]=…` and `lead.phone=…` both fill `{"lead": {"phone": "…"}}`. A
 * name repeated, or ending in `[]`, collects its values in an array. Every value is a string. The
 * objects have no prototype, so a name such as `__proto__` is only a key. Undefined `error` names
 * a key that cannot be placed: an empty part (`a..b`, `a[]x`), or a name used both for a value
 * and for a group (`a=1&a[b]=2`).
 */
export function formObject(params: URLSearchParams): { value: object } | { error: string } {
  const root: { [key: string]: Node } = Object.create(null);
  for (const [name, value] of params) {
    const parsed = pathOf(name);
    if (!parsed) return { error: `The form key "${name.slice(0, 100)}" has an empty or unmatched part.` };
    const { path, many } = parsed;
    let node = root;
    for (const [i, key] of path.entries()) {
      const slot = Object.hasOwn(node, key) ? node[key] : undefined;
      if (i < path.length - 1) {
        if (slot === undefined) node[key] = Object.create(null);
        else if (typeof slot === 'string' || Array.isArray(slot))
          return { error: `The form key "${path.slice(0, i + 1).join('.')}" is both a value and a group.` };
        node = node[key] as { [key: string]: Node };
        continue;
      }
      if (slot === undefined) node[key] = many ? [value] : value;
      else if (typeof slot === 'string') node[key] = [slot, value];
      else if (Array.isArray(slot)) slot.push(value);
      else return { error: `The form key "${path.join('.')}" is both a value and a group.` };
    }
  }
  return { value: root };
}
