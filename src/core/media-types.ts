// The same test @hono/zod-openapi applies to a JSON body, so a body /v1's guard lets through is
// never refused again by the validator with a different error; webhook ingest reads the same types.
export const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** A form body, as browsers and `curl -d` send it. */
export const FORM_TYPE = /^application\/x-www-form-urlencoded(;.*)?$/i;
