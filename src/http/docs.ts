import { swaggerUI } from '@hono/swagger-ui';
import { createMiddleware } from 'hono/factory';

/**
 * The Swagger UI release the page loads, pinned with Subresource Integrity: a script from a CDN
 * runs on this origin, where an API key may be typed into "Authorize", so the browser must refuse
 * any other bytes. The hashes are of the files in the npm package, which jsDelivr serves as is.
 */
const SWAGGER_UI = {
  version: '5.35.0',
  integrity: {
    'swagger-ui-bundle.js': 'sha384-gjRm0bEPMeTmMh5jT2cHccIwCUZSTd8YC+j0d0sXw0MdGEfScduGpSyF3ZSSLkX9',
    'swagger-ui.css': 'sha384-WlYgdmXYOOBWL5apwjDEZwN+U3HmXSSu5R6V5aGxEcf7z+KuRNwBhoxKVN1i3D5I',
  } as Record<string, string>,
};

const integrityOf = (url: string): string => {
  const hash = SWAGGER_UI.integrity[url.slice(url.lastIndexOf('/') + 1)];
  if (!hash) throw new Error(`no integrity hash for ${url}`);
  return hash;
};

/** The Swagger UI page. */
export const docsPage = swaggerUI({
  url: '/openapi.json',
  title: 'CRM Service API',
  version: SWAGGER_UI.version,
  // validatorUrl 'none': else Swagger UI shows a badge from validator.swagger.io, a host the policy refuses.
  manuallySwaggerUIHtml: (asset) => `
    <div id="swagger-ui"></div>
    ${asset.css.map((url) => `<link rel="stylesheet" href="${url}" integrity="${integrityOf(url)}" crossorigin="anonymous" />`).join('')}
    ${asset.js.map((url) => `<script src="${url}" integrity="${integrityOf(url)}" crossorigin="anonymous"></script>`).join('')}
    <script>
      window.onload = () => {
        window.ui = SwaggerUIBundle({ dom_id: '#swagger-ui', url: '/openapi.json', validatorUrl: 'none' })
      }
    </script>`,
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
  // A failure is not kept: the next request works the policy out again.
  policy ??= c.res
    .clone()
    .text()
    .then(policyFor)
    .catch((err: unknown) => {
      policy = undefined;
      throw err;
    });
  c.res.headers.set('Content-Security-Policy', await policy);
});
