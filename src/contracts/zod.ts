/**
 * The `zod` the bundle is built with (wrangler.toml `[alias]`, vitest.config.ts `resolve.alias`):
 * zod itself, less the namespaces nothing here reads (src/contracts/zod-names.ts).
 *
 * Why: @hono/zod-openapi hands zod's whole namespace to `extendZodWithOpenApi(z)` as a value, so a
 * bundler must keep every export of it, and `z.locales` and `z.core.locales` are zod's 47
 * error-message locales: 260 KiB of the 905 KiB minified Worker, parsed at every startup. The
 * API's messages are its own (English, `src/contracts/field-errors.ts`), zod's default `en` locale
 * stays configured, and every schema, check and class is exported as before. zod-to-openapi works
 * on schema instances and reads neither.
 */
import * as z from './zod-names';

export * from './zod-names';
export { z, z as default };
