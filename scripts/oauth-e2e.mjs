// `npm run e2e:oauth`: the OAuth flow of /mcp in a real browser (docs/mcp.md, *OAuth*). Starts
// `wrangler dev` on a free port over a fresh local D1 and KV, registers a client (RFC 7591), drives
// the Chromium of the @sparticuz/chromium npm package through sign-in and the consent page with
// PKCE S256, takes the code at the client's redirect URI (intercepted: no client runs), exchanges
// it, calls tools, refreshes, revokes the connection from the panel's settings and sees the 401.
// Wrangler and Chromium are stopped on every way out, and the run is bounded in time.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';
import { migrate, startWorker } from '../bench/local.mjs';
import { browserRun, check } from './browser-run.mjs';

const LIMIT_MS = 180_000;
// `--screenshots`: the consent page and the connections page at 1440 and 375 px, in pt-BR (the
// panel's first language), into docs/panel/ beside the panel run's.
const SCREENSHOTS = process.argv.includes('--screenshots');
const SHOTS = new URL('../docs/panel/', import.meta.url);
// Nothing listens there: the browser's request for it is answered by the run itself (port 9, the
// usual "nothing here", is one Chromium refuses to connect to).
const REDIRECT = 'http://127.0.0.1:4999/callback';

const { dir, log, held, finish } = browserRun('oauth e2e', LIMIT_MS);

const INSPECTOR = new URL('../node_modules/.bin/mcp-inspector', import.meta.url).pathname;

/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`), a client this project did not
 * write, as the OAuth token: its output, parsed. With `--strict`, tools/list reports every schema
 * a client's dialect might not read (a warning) or could not (an error, exit 6): there must be none.
 * @param {string} origin @param {string} token @param {string[]} args
 */
async function inspector(origin, token, args) {
  const { stdout, stderr } = await promisify(execFile)(
    INSPECTOR,
    ['--cli', `${origin}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
    { timeout: 60_000 },
  );
  check(!/warning|error/i.test(stderr), `inspector ${args.join(' ')}: ${stderr}`);
  return JSON.parse(stdout);
}

const b64url = (/** @type {Buffer} */ bytes) => bytes.toString('base64url');

/** A JSON-RPC call to /mcp as `token`: the HTTP status, the header a 401 names, and the result. */
async function rpc(/** @type {string} */ origin, /** @type {string} */ token, /** @type {object} */ message) {
  const res = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: res.status, challenge: res.headers.get('WWW-Authenticate'), body: JSON.parse(json) };
}

/** @param {string} origin @param {Record<string, string>} fields */
async function token(origin, fields) {
  const res = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const body = /** @type {{ access_token: string, refresh_token: string }} */ (await res.json());
  return { status: res.status, body };
}

async function seed() {
  await migrate(dir, log);
  const adminToken = randomBytes(24).toString('hex');
  const worker = await startWorker({ persistTo: dir, adminToken, log });
  held.worker = worker;
  const { origin } = worker;
  const admin = await fetch(`${origin}/admin/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Loja Exemplo' }),
  });
  check(admin.status === 201, `admin account: ${admin.status}`);
  const { data } = /** @type {{ data: { api_key: { key: string } } }} */ (await admin.json());
  const registered = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'E2E Assistant',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  check(registered.status === 201, `registration: ${registered.status}`);
  const client = /** @type {{ client_id: string }} */ (await registered.json());
  return { origin, key: data.api_key.key, clientId: client.client_id };
}

/** @param {import('playwright-core').Page} page @param {string} name */
async function shots(page, name) {
  if (!SCREENSHOTS) return;
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width < 800 ? 800 : 900 });
    await page.screenshot({ path: new URL(`${name}-${width}.png`, SHOTS).pathname, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/**
 * Sign-in, consent and approval in the browser: the code the client's redirect URI receives.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key
 * @param {string} clientId @param {string} challenge
 */
async function authorize(page, origin, key, clientId, challenge) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'e2e-state',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${origin}/mcp`,
    scope: 'companies:read companies:insert events:read',
  });
  await page.goto(`${origin}/panel/oauth/authorize?${query}`);
  check(new URL(page.url()).pathname === '/panel/sign-in', `not sent to sign in: ${page.url()}`);
  await page.fill('#api_key', key);
  await page.click('form[action="/panel/sign-in"] button[type="submit"]');
  await page.waitForURL((url) => url.pathname === '/panel/oauth/authorize');
  const text = await page.textContent('main');
  check(text?.includes('E2E Assistant') && text.includes('127.0.0.1'), `consent page: ${text}`);
  check(await page.isChecked('input[value="companies:insert"]'), 'the asked scope is not ticked');
  check(!(await page.isChecked('input[value="deals:read"]')), 'a scope not asked for is ticked');
  await shots(page, 'oauth-consent');
  // The browser follows the answer's redirect to the client (which the consent page's CSP must
  // allow as a form target); no client listens there, so the request itself is the proof.
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().startsWith(REDIRECT)),
    page.click('button[value="approve"]'),
  ]);
  const callback = new URL(request.url());
  check(callback?.searchParams.get('state') === 'e2e-state', `state: ${callback}`);
  check(callback?.searchParams.get('iss') === origin, `iss: ${callback}`);
  return callback?.searchParams.get('code') ?? '';
}

async function run() {
  const { origin, key, clientId } = await seed();
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash('sha256').update(verifier).digest());
  const executablePath = await chromium.executablePath();
  const browser = await playwright.launch({ executablePath, args: chromium.args });
  held.browser = browser;
  const locale = SCREENSHOTS ? 'pt-BR' : 'en';
  const page = await (await browser.newContext({ locale })).newPage();
  page.setDefaultTimeout(15_000);
  /** @type {string[]} */
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) errors.push(msg.text());
  });
  const code = await authorize(page, origin, key, clientId, challenge);
  const resource = `${origin}/mcp`;
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource,
  };
  const tokens = await token(origin, { ...exchange, code_verifier: verifier });
  check(tokens.status === 200, `token: ${JSON.stringify(tokens.body)}`);
  const access = tokens.body.access_token;
  const listed = await rpc(origin, access, { method: 'tools/list' });
  const names = listed.body.result.tools.map((/** @type {{ name: string }} */ t) => t.name).sort();
  const expected = ['create_record', 'get_record', 'get_record_history', 'list_changes', 'list_companies'];
  check(JSON.stringify(names) === JSON.stringify(expected), `tools: ${names}`);
  const args = { company: { name: 'Padaria Central', cnpj: '11.222.333/0001-81' } };
  const made = await rpc(origin, access, {
    method: 'tools/call',
    params: { name: 'create_record', arguments: args },
  });
  check(!made.body.result.isError, `create_record: ${JSON.stringify(made.body)}`);
  const refreshed = await token(origin, {
    grant_type: 'refresh_token',
    refresh_token: tokens.body.refresh_token,
    client_id: clientId,
    resource,
  });
  check(refreshed.status === 200, `refresh: ${JSON.stringify(refreshed.body)}`);
  const fresh = refreshed.body.access_token;
  const list = await rpc(origin, fresh, {
    method: 'tools/call',
    params: { name: 'list_companies', arguments: {} },
  });
  check(
    list.body.result.structuredContent.data[0].name === 'Padaria Central',
    `list: ${JSON.stringify(list.body)}`,
  );
  const inspected = await inspector(origin, fresh, ['--method', 'tools/list', '--strict']);
  const seen = inspected.tools.map((/** @type {{ name: string }} */ t) => t.name).sort();
  check(JSON.stringify(seen) === JSON.stringify(names), `inspector tools/list: ${seen}`);
  const called = await inspector(origin, fresh, ['--method', 'tools/call', '--tool-name', 'list_companies']);
  check(
    called.structuredContent?.data?.[0]?.name === 'Padaria Central',
    `inspector: ${JSON.stringify(called)}`,
  );
  await page.goto(`${origin}/panel/settings`);
  await page.click('a[href="/panel/settings/connections"]');
  check((await page.textContent('main'))?.includes('E2E Assistant'), 'the connection is not listed');
  await shots(page, 'oauth-connections');
  await page.click('form[action$="/revoke"] button');
  await page.waitForURL((url) => url.searchParams.get('done') === 'revoked');
  const after = await rpc(origin, fresh, { method: 'tools/list' });
  check(after.status === 401, `after revoke: ${after.status}`);
  check(
    after.challenge?.includes(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`),
    `challenge: ${after.challenge}`,
  );
  check(errors.length === 0, errors.join('\n'));
  console.log(
    'oauth e2e: register, sign in, consent (PKCE S256), token, tools/call, refresh, the MCP Inspector CLI, revoke in the panel, 401: ok',
  );
}

await finish(run);
