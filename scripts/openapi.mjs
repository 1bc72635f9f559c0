// `npm run openapi`: the OpenAPI document as clients see it, checked offline (no server, no network):
// Redocly's linter must find 0 errors, and a client generated with openapi-typescript must type-check
// the README walk-through (tools/openapi/walkthrough.ts) with openapi-fetch.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'tools/openapi/generated');
mkdirSync(out, { recursive: true });

// The app itself imports nothing from `cloudflare:`; the OAuth library's module does (its class
// extends `WorkerEntrypoint` as it loads), so those modules are stubs here: building the document
// runs none of it, and the bundled source runs in Node as it is.
const workersStub = {
  name: 'cloudflare-modules-stub',
  /** @param {import('esbuild').PluginBuild} esbuild */
  setup(esbuild) {
    esbuild.onResolve({ filter: /^cloudflare:/ }, ({ path }) => ({ path, namespace: 'cloudflare-stub' }));
    esbuild.onLoad({ filter: /.*/, namespace: 'cloudflare-stub' }, () => ({
      contents: 'export class WorkerEntrypoint {}\nexport class DurableObject {}\nexport const env = {};',
      loader: 'js',
    }));
  },
};
const bundle = join(out, 'app.mjs');
await build({
  entryPoints: [join(root, 'src/index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'error',
  plugins: [workersStub],
});
// The library warns, as it loads, when the runtime lacks the compatibility flag that client ID
// metadata documents need; wrangler.toml sets it, and Node stands in for the runtime here.
Object.assign(globalThis, { Cloudflare: { compatibilityFlags: { global_fetch_strictly_public: true } } });
const { openApiDocument } = await import(pathToFileURL(bundle).href);
const documentFile = join(out, 'openapi.json');
writeFileSync(documentFile, JSON.stringify(openApiDocument('http://localhost:8787'), null, 2));

const tools = join(root, 'tools/openapi');
/** A file of an installed package, as resolved from `dir`. @param {string} dir @param {string} pkg @param {string} file */
const bin = (dir, pkg, file) =>
  join(dirname(createRequire(join(dir, 'x.js')).resolve(`${pkg}/package.json`)), file);

/**
 * Runs a package's CLI with this node. Its output is shown only when it fails (or, `quiet`, says
 * anything it should not), so a green `npm test` prints one line here and a warning is news.
 * @param {string} label @param {string} script @param {string[]} args @param {RegExp} [quiet]
 */
function run(label, script, args, quiet) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  const said = `${stdout}${stderr}`;
  if (status !== 0 || quiet?.test(said)) {
    console.error(
      `${said}\nopenapi: ${label} ${status !== 0 ? 'failed' : `printed what it should not (${quiet})`}`,
    );
    process.exit(status || 1);
  }
}

run('redocly lint', bin(root, '@redocly/cli', 'bin/cli.js'), [
  'lint',
  documentFile,
  '--config',
  join(root, 'redocly.yaml'),
  '--format',
  'stylish',
]);
// openapi-typescript lints again with the rules of the Redocly config it is given; the lint is the
// step above (with the ignore file for /health's 200 alone), so its config turns that rule off.
run(
  'openapi-typescript',
  bin(tools, 'openapi-typescript', 'bin/cli.js'),
  [documentFile, '--output', join(out, 'api.d.ts'), '--redocly', join(tools, 'redocly.yaml')],
  /⚠|warn/i,
);
console.log(
  'openapi: Redocly lint clean, openapi-typescript client generated without a warning, walk-through type-checks',
);
run('tsc (walk-through client)', bin(root, 'typescript', 'bin/tsc'), ['-p', join(tools, 'tsconfig.json')]);
