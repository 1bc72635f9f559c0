import type { Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env';
import { ApiError, type ProblemCode, problems, titles } from './problem';

/** A page for people: the same text for every account, so any cache may keep it an hour. */
const CACHE = 'public, max-age=3600';

const statusLine = (code: ProblemCode) => {
  const { status } = problems[code];
  return `${status} ${titles[status] ?? ''}`.trim();
};

const layout = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${title} · CRM Service</title>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;

/**
 * `GET /problems/{code}`: what a problem's `type` names, rendered from the code table
 * (src/http/problem.ts), so a link in any problem body explains its code. An unknown code is the
 * usual 404 problem; nothing of the path is echoed.
 */
export async function problemPage(c: Context<AppEnv>) {
  const code = c.req.param('code') ?? '';
  if (!Object.hasOwn(problems, code)) throw new ApiError(404, 'not_found', 'No such problem code.');
  const known = code as ProblemCode;
  c.header('Cache-Control', CACHE);
  return c.html(
    layout(
      known,
      html`<h1><code>${known}</code></h1>
<p>HTTP ${statusLine(known)}</p>
<p>${problems[known].about}</p>
<p>A problem is answered as <code>application/problem+json</code> (RFC 9457) with <code>type</code> (this page), <code>title</code>, <code>status</code>, <code>detail</code> (what happened to this request), this <code>code</code>, the <code>request_id</code> and, for field problems, <code>errors</code>. Match on <code>code</code>: it does not change; <code>detail</code> may.</p>
<p><a href="/problems">Every problem code</a></p>`,
    ),
  );
}

/** `GET /problems`: every code, its status and what it means. */
export async function problemIndex(c: Context<AppEnv>) {
  const codes = Object.keys(problems) as ProblemCode[];
  c.header('Cache-Control', CACHE);
  return c.html(
    layout(
      'Problem codes',
      html`<h1>Problem codes</h1>
<dl>
${codes.map(
  (code) => html`<dt><a href="/problems/${code}"><code>${code}</code></a> (${statusLine(code)})</dt>
<dd>${problems[code].about}</dd>
`,
)}</dl>`,
    ),
  );
}
