// Part of `npm test`: the layers of src/ depend only downwards and no module imports itself back
// through a loop, so storage, the wire contracts and the pure rules can change without dragging
// HTTP along. Walks the relative imports of every .ts file under src/ with a regex (type-only
// imports count too: a type from a higher layer is the same backward dependency).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..', 'src');

/**
 * Which top-level folders of src/ a layer may import from besides itself. A folder missing here
 * (or a file at the top of src/) is an outer layer, free to import anything but a route module.
 * @type {Record<string, string[]>}
 */
const allowed = {
  core: [],
  contracts: ['core'],
  db: ['core'],
  model: ['core', 'contracts', 'db'],
  // The inbound webhook's home: its contract, its event log and its flow actions. Each action
  // module holds its own schema and statements, so the webhook's contract sits above model/.
  webhooks: ['core', 'contracts', 'db', 'model'],
};
/**
 * The npm packages (or `node:` modules) a layer may import; a layer missing here may import any.
 * core/ imports none, so its rules stay pure: no schema library, no SQL, no runtime.
 * @type {Record<string, string[]>}
 */
const packages = { core: [] };

// Routes are leaves: what a route and another outer module (the panel, the queue) share lives in
// model/ or below, so only the app that mounts the routers imports them.
const routesLayer = 'routes';
const routesImporters = ['index.ts'];

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** @param {string} from @param {string} spec */
function target(from, spec) {
  const base = resolve(dirname(from), spec);
  // A spec with its extension (`../package.json`) names the file itself.
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), ...(/\.json$/.test(base) ? [base] : [])]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  throw new Error(`${relative(root, from)}: cannot resolve ${spec}`);
}

/** @param {string} file */
const layerOf = (file) => {
  const parts = relative(root, file).split('/');
  return parts.length > 1 ? parts[0] : '';
};

// `import … from './x'`, `export … from './x'`, `import './x'` and `import('./x')`.
const importPattern = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?from\s+)?'(\.[^']+)'|import\('(\.[^']+)'\)/g;
// The same forms naming a package rather than a path.
const packagePattern =
  /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?from\s+)?'([^.'][^']*)'|import\('([^.'][^']*)'\)/g;

/** @type {Map<string, string[]>} */
const graph = new Map();
for (const file of walk(root)) {
  const text = readFileSync(file, 'utf8');
  graph.set(
    file,
    [...text.matchAll(importPattern)].map((m) => target(file, m[1] ?? m[2] ?? '')),
  );
}

const problems = [];
for (const file of graph.keys()) {
  const allowedPackages = packages[layerOf(file)];
  if (!allowedPackages) continue;
  for (const m of readFileSync(file, 'utf8').matchAll(packagePattern)) {
    const spec = m[1] ?? m[2] ?? '';
    if (!allowedPackages.some((p) => spec === p || spec.startsWith(`${p}/`)))
      problems.push(`${relative(root, file)} -> ${spec}: ${layerOf(file)}/ may not import a package`);
  }
}
for (const [file, deps] of graph) {
  const layer = layerOf(file);
  for (const dep of deps) {
    const other = layerOf(dep);
    if (other === routesLayer && !routesImporters.includes(relative(root, file))) {
      problems.push(
        `${relative(root, file)} -> ${relative(root, dep)}: only ${routesImporters.join(', ')} may import a route module`,
      );
      continue;
    }
    if (other === layer || !(layer in allowed)) continue;
    if (!allowed[layer].includes(other))
      problems.push(
        `${relative(root, file)} -> ${relative(root, dep)}: ${layer}/ may not import ${other || 'src/'}`,
      );
  }
}

// Tarjan's strongly connected components: any component of more than one file is a loop.
let index = 0;
/** @type {Map<string, number>} */ const indices = new Map();
/** @type {Map<string, number>} */ const low = new Map();
/** @type {string[]} */ const stack = [];
const onStack = new Set();
/** @param {string} node */
function connect(node) {
  indices.set(node, index);
  low.set(node, index);
  index++;
  stack.push(node);
  onStack.add(node);
  for (const dep of graph.get(node) ?? []) {
    if (!indices.has(dep)) {
      connect(dep);
      low.set(node, Math.min(low.get(node) ?? 0, low.get(dep) ?? 0));
    } else if (onStack.has(dep)) {
      low.set(node, Math.min(low.get(node) ?? 0, indices.get(dep) ?? 0));
    }
  }
  if (low.get(node) === indices.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop() ?? node;
      onStack.delete(member);
      component.push(relative(root, member));
    } while (member !== node);
    const selfImport = (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || selfImport) problems.push(`import loop: ${component.sort().join(', ')}`);
  }
}
for (const node of graph.keys()) if (!indices.has(node)) connect(node);

// The event log has one home: only these files write inbound_events (an insert, update or delete
// of `inboundEvents`, or raw DML naming the table). The erasure stays in db/, below the log.
const eventLogWriters = ['webhooks/event-log.ts', 'db/erasure.ts'];
const rawEventWrite = /\b(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from)\s+"?inbound_events\b/i;
/** @param {string} text */
function writesEvents(text) {
  // The table, or a name it is given (`const e = inboundEvents`), passed to insert, update or delete.
  const names = ['inboundEvents', ...[...text.matchAll(/\b(\w+)\s*=\s*inboundEvents\b/g)].map((m) => m[1])];
  return (
    rawEventWrite.test(text) ||
    names.some((name) => new RegExp(`\\.(?:insert|update|delete)\\(\\s*${name}\\b`).test(text))
  );
}
for (const file of graph.keys()) {
  const name = relative(root, file);
  if (!eventLogWriters.includes(name) && writesEvents(readFileSync(file, 'utf8')))
    problems.push(`${name}: writes inbound_events; only ${eventLogWriters.join(', ')} may`);
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-layers: ${graph.size} modules, no loop, no backward import`);
