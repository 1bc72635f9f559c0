import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from './problem';

/**
 * The Swagger UI page. Its script, stylesheet and start-up script are static files of the docs
 * Worker (workers/docs: dist/assets, built by scripts/assets.mjs from the pinned swagger-ui-dist
 * package), served on this origin, so the page works offline and no third party's code runs where
 * an API key may be typed into "Authorize".
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
 * `GET /docs/{file}`: the page's files, read from the docs Worker through the DOCS service binding,
 * so these answers carry the same security headers as every other.
 */
export const docsAsset = createMiddleware<AppEnv>(async (c) => {
  const res = await c.env.DOCS.fetch(c.req.raw);
  if (res.status === 404) throw new ApiError(404, 'not_found', 'No such route.');
  return new Response(res.body, res);
});
