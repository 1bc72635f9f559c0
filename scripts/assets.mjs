// Builds the Worker's static assets (`[assets]` in wrangler.toml) into dist/assets: the files
// committed under public/, plus the Swagger UI files /docs loads, copied from the swagger-ui-dist
// package so the 1.7 MB bundle is never committed and /docs needs no CDN. wrangler runs this before
// `wrangler dev` and `wrangler deploy` (`[build]`), vitest.config.ts before the tests.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const assetsDir = join(root, 'dist', 'assets');

/** The Swagger UI files /docs references (src/http/docs.ts), by the name it serves them under. */
const swaggerUiFiles = ['swagger-ui-bundle.js', 'swagger-ui.css'];

export function buildAssets() {
  const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // A fresh copy, so a file removed from public/ is not served on.
  rmSync(assetsDir, { recursive: true, force: true });
  cpSync(join(root, 'public'), assetsDir, { recursive: true });
  mkdirSync(join(assetsDir, 'docs'), { recursive: true });
  for (const file of swaggerUiFiles) cpSync(join(swaggerUi, file), join(assetsDir, 'docs', file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildAssets();
