import { swaggerUI } from '@hono/swagger-ui';
import { createMiddleware } from 'hono/factory';

/** The Swagger UI page. */
export const docsPage = swaggerUI({
  url: '/openapi.json',
  title: 'CRM Service API',
  // The major version the page is written for; unpinned, the CDN serves whatever is newest.
  version: '5',
  // Otherwise Swagger UI shows a badge image from validator.swagger.io, a host the policy refuses.
  validatorUrl: 'none',
});

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/** What the page loads: script and stylesheet URLs, and the text of each inline script. */
async function assetsOf(html: string) {
  const scripts: string[] = [];
  const styles: string[] = [];
  const inline: string[] = [];
  let text: string | undefined;
  await new HTMLRewriter()
    .on('script', {
      element(script) {
        const src = script.getAttribute('src');
        if (src) scripts.push(src);
        else text = '';
      },
      text(chunk) {
        if (text === undefined) return;
        text += chunk.text;
        if (chunk.lastInTextNode) {
          inline.push(text);
          text = undefined;
        }
      },
    })
    .on('link[rel="stylesheet"]', {
      element(link) {
        const href = link.getAttribute('href');
        if (href) styles.push(href);
      },
    })
    .transform(new Response(html))
    .arrayBuffer();
  return { scripts, styles, inline };
}

/**
 * Exactly what the page needs: Swagger UI's script and stylesheet by URL, its inline start-up
 * script by hash, the spec from this origin, and images from data: URLs (its icons), nothing else.
 */
async function policyFor(html: string): Promise<string> {
  const { scripts, styles, inline } = await assetsOf(html);
  const hashes = await Promise.all(inline.map(async (script) => `'sha256-${await sha256Base64(script)}'`));
  return [
    "default-src 'none'",
    `script-src ${[...scripts, ...hashes].join(' ')}`,
    `style-src ${styles.join(' ')}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

// The page is the same on every request: its policy is worked out once per isolate.
let policy: Promise<string> | undefined;

/** Gives the page a Content-Security-Policy of its own, made from the page as served. */
export const docsPolicy = createMiddleware(async (c, next) => {
  await next();
  policy ??= c.res.clone().text().then(policyFor);
  c.res.headers.set('Content-Security-Policy', await policy);
});
