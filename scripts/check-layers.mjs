// Part of `npm test`: the layers of src/ depend only downwards and no module imports itself back
// through a loop, so storage, the wire contracts and the pure rules can change without dragging
// HTTP along. Walks the relative imports of every .ts file under src/ and every .mjs file under
// bench/ and scripts/ with a regex (type-only imports and JSDoc's `import("./x")` count too: a
// type from a higher layer is the same backward dependency; the one exception, `typeOnly`, is the
// webhook rules naming the configuration's types from its zod contract).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const repo = resolve(dirname(new URL(import.meta.url).pathname), '..');
const root = join(repo, 'src');

// The inbound webhook's home, src/webhooks/, in the order its sub-folders stand: each one a part of
// its own (see layerOf), so a rule cannot reach the log and the log cannot reach the flow engine.
const webhooks = [
  'webhooks/rules',
  'webhooks/config',
  'webhooks/actions',
  'webhooks/contract',
  'webhooks/log',
  'webhooks/processing',
  'webhooks/ingest',
  'webhooks/resource',
];
// The layers every outer part (queue/, panel/, routes/, index.ts) stands on.
const lower = ['core', 'contracts', 'db', 'journal', 'model', ...webhooks, 'imports'];
/**
 * What each part of src/ (a top-level folder, a sub-folder of webhooks/, or a file at the top) may
 * import besides itself: core -> contracts, db -> model -> webhooks/* -> routes/queue/panel, with
 * the app's HTTP plumbing beside model/: auth/ below http/, and env.ts. A part missing here is a
 * problem: each new one takes a place.
 * @type {Record<string, string[]>}
 */
const allowed = {
  // The pure rules: no schema library, no SQL, no runtime (see `packages`).
  core: [],
  // The inbound webhook's pure rules (fields, flows, templates, sample, token, event identity,
  // search, warnings, history): core's twin for the webhook, so storage may name their types
  // (db/schema.ts's JSON columns) as it names core's. The configuration's types it names come from
  // the contract by `import type` alone (see `typeOnly`).
  'webhooks/rules': ['core'],
  // The wire contracts (zod) and the storage (Drizzle) both stand on the rules alone.
  contracts: ['core'],
  db: ['core', 'webhooks/rules'],
  // The change journal: its entries' statements (appended by the write specs of model/ through
  // db/journaling.ts's hooks), snapshots, reads and retention.
  journal: ['core', 'contracts', 'db'],
  // A resource's write spec (with its journal), reads and presenter: contract in, rows out.
  model: ['core', 'contracts', 'db', 'journal'],
  // The webhook configuration's zod parts (fields, when, owner, templates) and its field targets.
  'webhooks/config': ['core', 'contracts', 'webhooks/rules'],
  // The flow actions: each module holds its own schema and statements, over a resource's model.
  'webhooks/actions': ['core', 'contracts', 'db', 'journal', 'model', 'webhooks/rules', 'webhooks/config'],
  // The /v1 resource's schemas (webhook, event, their queries): the flow union comes from actions/.
  'webhooks/contract': ['core', 'contracts', 'webhooks/rules', 'webhooks/config', 'webhooks/actions'],
  // The event log: its one writer, states, reads, filters, overview, replay, promote, storage.
  'webhooks/log': ['core', 'contracts', 'db', 'webhooks/rules', 'webhooks/contract'],
  // What the queue does with an event: plan its flows, run its actions, salvage what it can.
  'webhooks/processing': [
    'core',
    'contracts',
    'db',
    'env.ts',
    'webhooks/rules',
    'webhooks/config',
    'webhooks/actions',
    'webhooks/log',
  ],
  // Reading a body in any charset and form, and what ingest keeps of it.
  // It checks a call's signature with auth/signatures.
  'webhooks/ingest': ['core', 'contracts', 'db', 'auth', 'webhooks/rules', 'webhooks/config', 'webhooks/log'],
  // The webhook resource itself (create, update, rotate, delete) and its signed sample event.
  'webhooks/resource': [
    'core',
    'contracts',
    'db',
    'auth',
    'webhooks/rules',
    'webhooks/actions',
    'webhooks/contract',
    'webhooks/log',
  ],
  // Outbound webhooks: endpoints, the URL policy's inputs, Standard Webhooks signing, one attempt's
  // send, deliveries and their log. Below the outer parts, beside webhooks/ (it reads no inbound part).
  outbound: ['core', 'contracts', 'db', 'model', 'auth', 'env.ts'],
  // CSV imports: the file read in chunks from R2 (bytes decoded as webhook ingest decodes them),
  // each chunk written as one batch of model/batch.
  imports: ['core', 'contracts', 'db', 'model', 'webhooks/ingest', 'env.ts'],
  // Moving an account between shards (docs/scaling.md): its steps over the shards' tables, the
  // directory's switch, the queue's messages, old credentials forwarded; it re-queues the account's
  // events, deliveries and import chunks.
  moves: ['core', 'contracts', 'db', 'model', 'auth', 'env.ts', 'outbound', 'webhooks/rules', 'webhooks/log'],
  // The Worker's bindings and per-request variables: types of the handles db/, model/ and http/
  // put on a request, and the queue's message (type-only imports, but a type is a dependency).
  'env.ts': ['db', 'http', 'model', 'webhooks/log', 'outbound', 'moves'],
  // The API key check, the secrets and the webhook signatures: below the HTTP edge, which hashes
  // with auth/secrets, and webhooks/, which signs its sample event. auth/ logs through core/log
  // and needs nothing from http/ (env.ts only for the request's types). Storage, never a model.
  auth: ['core', 'contracts', 'db', 'env.ts'],
  // The HTTP edge: problem+json, OpenAPI, pagination, idempotency, rate limits. Storage and auth/,
  // never a resource's model: what a resource means is model/'s business.
  http: ['core', 'contracts', 'db', 'auth', 'env.ts'],
  // The Queue adapter runs without a request: nothing from http/ (its errors and logs are not
  // problem+json) and nothing from the other outer parts.
  queue: [...lower, 'env.ts', 'outbound', 'moves'],
  // The outer parts share through model/ or below; they import no route (routes are leaves), and
  // a route imports nothing from queue/.
  panel: [...lower, 'auth', 'http', 'env.ts', 'oauth', 'outbound'],
  routes: [...lower, 'auth', 'http', 'env.ts', 'outbound', 'moves'],
  // The MCP endpoint: tools made from the OpenAPI document, each a /v1 request through the app's
  // own fetch (handed in by index.ts), so it needs no route and no model.
  mcp: ['core', 'contracts', 'auth', 'http', 'env.ts'],
  // OAuth 2.1 (@cloudflare/workers-oauth-provider): its endpoints, the CIMD fetch policy, and the
  // API key each grant acts through (model/'s key rules), for the panel's consent page and index.ts.
  oauth: [...lower, 'auth', 'http', 'env.ts'],
  // The Worker itself: mounts the routers and the panel, and exports the queue consumer.
  'index.ts': [
    ...lower,
    'auth',
    'http',
    'env.ts',
    'queue',
    'panel',
    'routes',
    'mcp',
    'oauth',
    'outbound',
    'moves',
  ],
  // The Node tools beside the Worker. The benchmark's seeds take their stored forms from core/
  // (pure, so Node runs it as it is); scripts/ drive bench/ and seat each shard's id ranges from
  // core/ (scripts/shards.mjs, the same ranges as the Worker's); both start wrangler through one helper.
  'scripts/wrangler.mjs': [],
  bench: ['core', 'scripts/wrangler.mjs'],
  scripts: ['core', 'bench', 'scripts/wrangler.mjs'],
};
/**
 * What a part may import with `import type` / `export type` only, besides `allowed`: such an
 * import is erased at build time, so it makes no runtime dependency and no runtime loop. The
 * webhook's pure rules name the configuration's types (FieldMapping, Action, Rejection, …) as the
 * zod contract's output (`z.output`), so the shapes have one definition, the contract, while
 * rules/ still runs without it. A plain `import { type X }` is kept by the build (verbatimModuleSyntax):
 * it does not count as type-only.
 * @type {Record<string, string[]>}
 */
const typeOnly = { 'webhooks/rules': ['webhooks/config', 'webhooks/contract'] };
// Parts whose modules import nothing from each other either: a route module is a leaf.
const leaves = ['routes'];
/**
 * The npm packages (or `node:` modules) a layer may import; a layer missing here may import any.
 * core/ and webhooks/rules/ import none, so their rules stay pure: no schema library, no SQL, no runtime.
 * @type {Record<string, string[]>}
 */
const packages = { core: [], 'webhooks/rules': [] };

/** @param {string} dir @param {string} ext @returns {string[]} */
function walk(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path, ext);
    return path.endsWith(ext) ? [path] : [];
  });
}

/** A file as the problems name it: from src/ for the Worker's, from the repository for the tools'. @param {string} file */
const nameOf = (file) => relative(file.startsWith(`${root}/`) ? root : repo, file);

/** @param {string} from @param {string} spec */
function target(from, spec) {
  const base = resolve(dirname(from), spec);
  // A spec with its extension (`../package.json`, `./seed.mjs`) names the file itself.
  for (const candidate of [
    `${base}.ts`,
    join(base, 'index.ts'),
    ...(/\.(json|mjs|ts)$/.test(base) ? [base] : []),
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  throw new Error(`${nameOf(from)}: cannot resolve ${spec}`);
}

/**
 * The part of src/ a file belongs to: its top-level folder, its sub-folder of webhooks/, or its
 * own name at the top. @param {string} file
 */
function layerOf(file) {
  if (!file.startsWith(`${root}/`)) {
    const name = relative(repo, file);
    return name in allowed ? name : (name.split('/')[0] ?? name);
  }
  const [top, sub, rest] = relative(root, file).split('/');
  return top === 'webhooks' && rest !== undefined ? `${top}/${sub}` : top;
}

// `import … from './x'`, `export … from './x'`, `import './x'` and `import("./x")`.
const importPattern = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?from\s+)?'(\.[^']+)'|import\('(\.[^']+)'\)/g;
// The same forms naming a package rather than a path.
const packagePattern =
  /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?from\s+)?'([^.'][^']*)'|import\('([^.'][^']*)'\)/g;

// `import type …` and `export type …`: erased at build time.
const typeOnlyPattern = /^\s*(?:import|export)\s+type\s/;

/** Every import of each file. @type {Map<string, string[]>} */
const graph = new Map();
/** The imports of each file that the build keeps (not type-only). @type {Map<string, Set<string>>} */
const runtime = new Map();
for (const file of [
  ...walk(root, '.ts'),
  ...walk(join(repo, 'bench'), '.mjs'),
  ...walk(join(repo, 'scripts'), '.mjs'),
]) {
  const imports = [...readFileSync(file, 'utf8').matchAll(importPattern)].map((m) => ({
    dep: target(file, m[1] ?? m[2] ?? ''),
    kept: !typeOnlyPattern.test(m[0]),
  }));
  graph.set(
    file,
    imports.map((i) => i.dep),
  );
  runtime.set(file, new Set(imports.filter((i) => i.kept).map((i) => i.dep)));
}

/** Whether `file` imports `dep` by type-only imports alone, as its part may (see `typeOnly`). */
const erased = (/** @type {string} */ file, /** @type {string} */ dep) =>
  (typeOnly[layerOf(file)] ?? []).includes(layerOf(dep)) && !runtime.get(file)?.has(dep);

const problems = [];
for (const file of graph.keys()) {
  const allowedPackages = packages[layerOf(file)];
  if (!allowedPackages) continue;
  for (const m of readFileSync(file, 'utf8').matchAll(packagePattern)) {
    const spec = m[1] ?? m[2] ?? '';
    if (!allowedPackages.some((p) => spec === p || spec.startsWith(`${p}/`)))
      problems.push(`${nameOf(file)} -> ${spec}: ${layerOf(file)}/ may not import a package`);
  }
}
for (const [file, deps] of graph) {
  const layer = layerOf(file);
  if (!(layer in allowed)) {
    problems.push(`${nameOf(file)}: ${layer} has no place in the layers of check-layers.mjs`);
    continue;
  }
  // Of the files walked, only ../package.json is imported (the version the app reports): no layer.
  for (const dep of deps.filter((d) => graph.has(d))) {
    const other = layerOf(dep);
    if (erased(file, dep)) continue;
    if (other === layer ? leaves.includes(layer) : !allowed[layer].includes(other))
      problems.push(`${nameOf(file)} -> ${nameOf(dep)}: ${layer} may not import ${other}`);
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
  // A type-only import its part may make is erased at build time: no runtime loop runs through it.
  for (const dep of (graph.get(node) ?? []).filter((d) => !erased(node, d))) {
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
      component.push(nameOf(member));
    } while (member !== node);
    const selfImport = (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || selfImport) problems.push(`import loop: ${component.sort().join(', ')}`);
  }
}
for (const node of graph.keys()) if (!indices.has(node)) connect(node);

// The event log has one home: only these files write inbound_events (an insert, update or delete
// of `inboundEvents`, or raw DML naming the table). The erasure stays in db/, below the log.
const eventLogWriters = ['webhooks/log/event-log.ts', 'db/erasure.ts'];
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
for (const file of [...graph.keys()].filter((f) => f.startsWith(`${root}/`))) {
  const name = relative(root, file);
  if (!eventLogWriters.includes(name) && writesEvents(readFileSync(file, 'utf8')))
    problems.push(`${name}: writes inbound_events; only ${eventLogWriters.join(', ')} may`);
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-layers: ${graph.size} modules, no loop, no backward import`);
