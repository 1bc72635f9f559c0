import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from './problem';

/**
 * The Swagger UI page. Its script, stylesheet and start-up script are static assets of this Worker
 * (built into dist/assets by scripts/assets.mjs from the pinned swagger-ui-dist package), so the
 * page works offline and no third party's code runs on this origin, where an API key may be typed
 * into "Authorize".
 */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>CRM Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css" />
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Exactly what the page needs: scripts and stylesheets from this origin (no inline script, so no
 * hash to keep in step), the spec and "Try it out" from this origin, images from data: URLs (its
 * icons), nothing else.
 */
const policy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `GET /docs`: the page, with a Content-Security-Policy of its own. */
export const docsPage = createMiddleware<AppEnv>(async (c) => {
  c.header('Content-Security-Policy', policy);
  return c.html(page);
});

/**
 * `GET /docs/{file}`: the page's files, read through the ASSETS binding. The Worker runs before
 * assets (`run_worker_first`), so these answers carry the same security headers as every other.
 */
export const docsAsset = createMiddleware<AppEnv>(async (c) => {
  const res = await c.env.ASSETS.fetch(c.req.raw);
  if (res.status === 404) throw new ApiError(404, 'not_found', 'No such route.');
  return new Response(res.body, res);
});
