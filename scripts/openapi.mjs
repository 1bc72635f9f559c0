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

// The app imports nothing from `cloudflare:`, so the bundled source runs in Node as it is.
const bundle = join(out, 'app.mjs');
await build({
  entryPoints: [join(root, 'src/index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'error',
});
const { openApiDocument } = await import(pathToFileURL(bundle).href);
const documentFile = join(out, 'openapi.json');
writeFileSync(documentFile, JSON.stringify(openApiDocument('http://localhost:8787'), null, 2));

const tools = join(root, 'tools/openapi');
/** A file of an installed package, as resolved from `dir`. @param {string} dir @param {string} pkg @param {string} file */
const bin = (dir, pkg, file) =>
  join(dirname(createRequire(join(dir, 'x.js')).resolve(`${pkg}/package.json`)), file);

/** Runs a package's CLI with this node; stops the script on a failure. @param {string} label @param {string} script @param {string[]} args */
function run(label, script, args) {
  const { status } = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (status !== 0) {
    console.error(`openapi: ${label} failed`);
    process.exit(status ?? 1);
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
run('openapi-typescript', bin(tools, 'openapi-typescript', 'bin/cli.js'), [
  documentFile,
  '--output',
  join(out, 'api.d.ts'),
  '--silent',
]);
run('tsc (walk-through client)', bin(root, 'typescript', 'bin/tsc'), ['-p', join(tools, 'tsconfig.json')]);
