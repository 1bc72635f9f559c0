// `npm run e2e`: the panel in a real browser. Starts `wrangler dev` on a free port over a fresh
// local D1, drives the Chromium shipped in the @sparticuz/chromium npm package (no download)
// through the panel, checks every page with axe-core at 375 and 1440 px, and saves screenshots to
// docs/panel/. Wrangler and Chromium are stopped on every way out, and the run is bounded in time.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';
import { migrate, startWorker } from '../bench/local.mjs';

const LIMIT_MS = 240_000;
const WIDTHS = [1440, 375];
const SHOTS = new URL('../docs/panel/', import.meta.url);
// The committed screenshots are refreshed on demand only (`npm run e2e -- --screenshots`), so a
// test run leaves the working tree as it found it.
const SCREENSHOTS = process.argv.includes('--screenshots');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const dir = mkdtempSync(join(tmpdir(), 'crm-panel-e2e-'));
const log = join(dir, 'wrangler.log');
/** @type {Awaited<ReturnType<typeof startWorker>> | undefined} */
let worker;
/** @type {import('playwright-core').Browser | undefined} */
let browser;

async function cleanUp() {
  await browser?.close().catch(() => {});
  await worker?.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}

/** @param {string} message */
async function fail(message) {
  console.error(`panel e2e: ${message}`);
  await cleanUp();
  process.exit(1);
}

const timer = setTimeout(() => void fail(`over ${LIMIT_MS / 1000} s`), LIMIT_MS);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void fail(`stopped by ${signal}`));

/** @param {unknown} condition @param {string} message */
function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** @type {string[]} */
const violations = [];
/** @type {string[]} */
const cspErrors = [];
let checkedPages = 0;
/** Minor and moderate violations: reported, not failed on. */
/** @type {string[]} */
const lesser = [];

/**
 * axe-core on the page at each width: no serious or critical violation. Injected through the
 * DevTools protocol, which the page's CSP does not govern, so the CSP stays on for the test.
 * @param {import('playwright-core').Page} page @param {string} name
 */
async function audit(page, name) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    if (!(await page.evaluate("'axe' in window"))) await page.evaluate(axeSource);
    // In-page code goes as text: it runs in the browser, not under this file's Node types.
    const found = /** @type {{ id: string, impact: string | null, nodes: string[][] }[]} */ (
      await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
        r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) })))`)
    );
    for (const v of found.filter((v) => v.impact !== 'serious' && v.impact !== 'critical')) {
      lesser.push(`${name} @${width}px: ${v.id} (${v.impact})`);
    }
    for (const v of found.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
      violations.push(`${name} @${width}px: ${v.id} (${v.impact}) at ${JSON.stringify(v.nodes.slice(0, 3))}`);
    }
    // Readable at this width: nothing wider than the viewport but the scrollable tables.
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    check(overflow <= 0, `${name} @${width}px scrolls sideways by ${overflow}px`);
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  checkedPages += 1;
}

/** @param {import('playwright-core').Page} page @param {string} name */
async function shot(page, name, width = WIDTHS[0]) {
  if (!SCREENSHOTS) return;
  await page.setViewportSize({ width, height: width < 800 ? 800 : 900 });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

/** A fresh account with a key, and a user to own what the flow creates. */
async function seedAccount() {
  if (SCREENSHOTS) mkdirSync(SHOTS, { recursive: true });
  await migrate(dir, log);
  const adminToken = randomBytes(24).toString('hex');
  worker = await startWorker({ persistTo: dir, adminToken, log });
  const { origin } = worker;
  const admin = await fetch(`${origin}/admin/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Loja Exemplo' }),
  });
  check(admin.status === 201, `admin account: ${admin.status}`);
  const { data } = /** @type {{ data: { api_key: { key: string } } }} */ (await admin.json());
  const key = data.api_key.key;
  const user = await fetch(`${origin}/v1/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Beatriz Souza', email: 'bia@example.com' }),
  });
  check(user.status === 201, `user: ${user.status}`);
  return { origin, key };
}

/** Chromium in pt-BR, with the clipboard allowed and CSP errors collected. @param {string} origin */
async function openPage(origin) {
  const executablePath = await chromium.executablePath();
  browser = await playwright.launch({ executablePath, args: chromium.args });
  const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: WIDTHS[0], height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
  });
  return page;
}

/**
 * Sign in with the keyboard alone: skip link, navigation, the key field, then its button.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key
 */
async function signIn(page, origin, key) {
  await page.goto(`${origin}/panel`);
  check(page.url().endsWith('/panel/sign-in'), `no session: ${page.url()}`);
  await audit(page, 'sign-in');
  await shot(page, 'sign-in', 375);
  const focused = () =>
    page.evaluate('document.activeElement?.id || document.activeElement?.textContent?.trim()');
  /** @type {string[]} */
  const order = [];
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Tab');
    order.push(String(await focused()));
  }
  check(order[0] === 'Pular para o conteúdo', `first Tab stop: ${order[0]}`);
  check(order.includes('api_key'), `the key field is not reached by Tab: ${order}`);
  while ((await focused()) !== 'api_key') await page.keyboard.press('Tab');
  await page.keyboard.type(key);
  await page.keyboard.press('Tab');
  check((await focused()) === 'Entrar', 'Tab after the key field does not reach the sign-in button');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/panel\/webhooks$/);
  await audit(page, 'webhooks (empty)');
}

/**
 * Create: a refused configuration shows its error next to the field; fixed, it is saved.
 * @param {import('playwright-core').Page} page @returns {Promise<string>} the webhook's edit URL
 */
async function createWebhook(page) {
  await page.getByRole('link', { name: 'Novo webhook' }).click();
  await page.waitForURL(/\/panel\/webhooks\/new$/);
  await audit(page, 'new webhook');
  await page.getByLabel('Nome', { exact: true }).fill('Formulário do site');
  await page.getByLabel('Chave 1').fill('email');
  await page.getByLabel('Destino 1').fill('contact.email');
  await page.getByRole('button', { name: 'Criar' }).click();
  const error = page.locator('#err-fields-0-type');
  check(
    (await error.textContent())?.includes('contact.email takes a field of type email'),
    'no error by the field',
  );
  check(
    (await page.getByLabel('Tipo 1').getAttribute('aria-invalid')) === 'true',
    'field not marked invalid',
  );
  await audit(page, 'new webhook (422)');
  await shot(page, 'new-webhook-422');
  await page.getByLabel('Tipo 1').selectOption('email');
  await page.getByRole('button', { name: 'Criar' }).click();
  await page.getByText('Salvo.').waitFor();
  const editUrl = page.url().replace(/\?.*$/, '');
  return editUrl;
}

/**
 * Test mode, a sample event and fields from it; then a flow: find the contact by email, owned by
 * a user picked by name.
 * @param {import('playwright-core').Page} page
 */
async function configureInTestMode(page) {
  await page.getByRole('button', { name: 'Passar para teste' }).click();
  await page.locator('.banner.test').waitFor();
  await page.getByRole('button', { name: 'Enviar evento de exemplo' }).click();
  await page.getByText('Evento de exemplo enviado.').waitFor();
  await page.getByRole('link', { name: 'Preencher com eventos de teste' }).click();
  await page
    .getByText('Campos dos eventos de teste adicionados')
    .waitFor()
    .catch(() => {});

  await page.locator('select[name="flows.0.action"]').selectOption('upsert_contact');
  await page.locator('input[name="flows.0.match_on"][value="email"]').check();
  await page.locator('select[name="flows.0.owner"]').selectOption({ label: 'Beatriz Souza' });
  await page.getByRole('button', { name: 'Salvar', exact: true }).click();
  await page.getByText('Salvo.').waitFor();
  check(
    (await page.locator('select[name="flows.0.owner"] option:checked').textContent()) === 'Beatriz Souza',
    'the owner was not kept',
  );
  await audit(page, 'edit webhook');
  await shot(page, 'edit-webhook');
  await shot(page, 'edit-webhook-375', 375);
}

/** The copy button, a nicety of the one script; then a new URL. @param {import('playwright-core').Page} page */
async function copyAndRotateUrl(page) {
  const url = await page.locator('#url').textContent();
  await page.locator('button.js-copy').click();
  check((await page.evaluate('navigator.clipboard.readText()')) === url, 'copy did not copy the URL');

  await page.getByRole('button', { name: 'Trocar URL' }).click();
  await page.getByText('Salvo.').waitFor();
  check((await page.locator('#url').textContent()) !== url, 'rotate kept the URL');
}

/**
 * In production the sample asks first (it writes real records: a contact named after its
 * email). Then a sender's lead with no name, email or phone fails in the queue consumer (nothing
 * to create a contact with): a failed event to find and replay.
 * @param {import('playwright-core').Page} page @param {string} editUrl
 */
async function replayAFailedEvent(page, editUrl) {
  await page.getByRole('button', { name: 'Passar para produção' }).click();
  await page.locator('.banner.production').waitFor();
  await page.getByRole('button', { name: 'Enviar evento de exemplo' }).click();
  await page.getByText('grava registros reais no CRM').waitFor();
  await audit(page, 'sample confirmation');
  await page.getByRole('button', { name: 'Enviar e gravar registros' }).click();
  await page.getByText('Evento de exemplo enviado.').waitFor();
  const hookUrl = (await page.locator('#url').textContent()) ?? '';
  const posted = await fetch(hookUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ origem: 'site' }),
  });
  check(posted.status === 204, `the sender's post answered ${posted.status}`);
  const failedLog = `${editUrl}/events?status=failed`;
  for (let tries = 0; tries < 40; tries++) {
    await page.goto(failedLog);
    if ((await page.locator('td a[href*="/events/"]').count()) > 0) break;
    await page.waitForTimeout(500);
  }
  await page.locator('td a[href*="/events/"]').first().click();
  await page.getByText('contact.name').first().waitFor();
  await page.getByRole('button', { name: 'Reprocessar' }).click();
  await page.getByText('Evento reenviado para a fila.').waitFor();
  await page.goto(editUrl);
}

/** The event log, its filter and an event's detail. @param {import('playwright-core').Page} page */
async function browseEvents(page) {
  await page.getByRole('link', { name: 'Eventos', exact: true }).click();
  await page.waitForURL(/\/events$/);
  await audit(page, 'events');
  await page.getByLabel('Status').selectOption('rejected');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.getByText('Nenhum evento encontrado com este filtro.').waitFor();
  await page.getByLabel('Status').selectOption('');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await shot(page, 'events');
  await page.locator('td a[href*="/events/"]').first().click();
  await page.getByRole('heading', { name: 'Corpo recebido' }).waitFor();
  await audit(page, 'event');
  await shot(page, 'event');
}

/**
 * Find a lead (issue 23): a sender's lead found by its phone typed in another format, then every
 * failed event of the "failed" filter replayed at once, after the confirmation that counts them.
 * @param {import('playwright-core').Page} page @param {string} editUrl
 */
async function findALeadAndReplayAll(page, editUrl) {
  const hookUrl = (await page.locator('#url').textContent()) ?? '';
  for (const body of [
    { nome: 'Joana Prado', telefone: '(11) 91234-5678', email: 'joana.prado@example.com' },
    { origem: 'instagram' },
  ]) {
    const posted = await fetch(hookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    check(posted.status === 204, `the sender's post answered ${posted.status}`);
  }
  await page.goto(`${editUrl}/events`);
  await page.getByLabel('Buscar um lead').fill('+55 11 91234 5678');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await page.waitForURL(/q=/);
  check((await page.locator('td a[href*="/events/"]').count()) === 1, 'the phone did not find its one lead');
  await audit(page, 'events (find a lead)');
  await shot(page, 'events-search');
  await shot(page, 'events-search-375', 375);
  // Both failures (the earlier one failed again after its replay, and the new one) settle as failed.
  const failedLog = `${editUrl}/events?status=failed`;
  for (let tries = 0; tries < 40; tries++) {
    await page.goto(failedLog);
    if ((await page.locator('td a[href*="/events/"]').count()) >= 2) break;
    await page.waitForTimeout(500);
  }
  await page.locator('details.confirm summary').click();
  await page.getByText('correspondem a este filtro').waitFor();
  await audit(page, 'events (replay all failed)');
  await page.getByRole('button', { name: /Sim, reprocessar \d+ agora/ }).click();
  await page.getByText(/\d+ reenviados; nenhuma falha resta neste filtro\./).waitFor();
  await page.goto(editUrl);
}

/**
 * Disable the webhook; the list, in English through the switch; sign out ends the session.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} editUrl
 */
async function disableAndSignOut(page, origin, editUrl) {
  await page.goto(editUrl);
  await page.getByRole('button', { name: 'Desativar' }).click();
  await page.locator('.banner.disabled').waitFor();

  // The list, in English through the switch.
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await page.getByRole('link', { name: 'English' }).click();
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
  await page.getByRole('link', { name: 'New webhook' }).waitFor();
  await audit(page, 'webhooks');
  await shot(page, 'webhooks');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/panel\/sign-in$/);
  await page.goto(`${origin}/panel/webhooks`);
  check(page.url().endsWith('/panel/sign-in'), 'the session outlived sign-out');
}

async function main() {
  const { origin, key } = await seedAccount();
  const page = await openPage(origin);
  await signIn(page, origin, key);
  const editUrl = await createWebhook(page);
  await configureInTestMode(page);
  await copyAndRotateUrl(page);
  await replayAFailedEvent(page, editUrl);
  await findALeadAndReplayAll(page, editUrl);
  await browseEvents(page);
  await disableAndSignOut(page, origin, editUrl);
  check(cspErrors.length === 0, `CSP violations:\n${cspErrors.join('\n')}`);
  check(violations.length === 0, `axe found serious or critical violations:\n${violations.join('\n')}`);
  console.log(
    `panel e2e: ${checkedPages} pages checked with axe at ${WIDTHS.join(' and ')} px, 0 serious/critical`,
  );
  if (lesser.length) console.log(`minor/moderate:\n${lesser.join('\n')}`);
}

try {
  await main();
  clearTimeout(timer);
  await cleanUp();
} catch (err) {
  clearTimeout(timer);
  await fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
}
