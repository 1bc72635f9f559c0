// `npm run e2e`: the panel in a real browser. Starts `wrangler dev` on a free port over a fresh
// local D1, drives the Chromium shipped in the @sparticuz/chromium npm package (no download)
// through the panel, checks every page with axe-core at 375 and 1440 px, and saves screenshots to
// docs/panel/. Wrangler and Chromium are stopped on every way out, and the run is bounded in time.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import chromium from '@sparticuz/chromium';
import { chromium as playwright } from 'playwright-core';
import { migrate, startWorker } from '../bench/local.mjs';
import { browserRun, check } from './browser-run.mjs';
import { outboundWalk } from './panel-e2e-outbound.mjs';

const LIMIT_MS = 420_000;
const WIDTHS = [1440, 375];
const SHOTS = new URL('../docs/panel/', import.meta.url);
// The committed screenshots are refreshed on demand only (`npm run e2e -- --screenshots`), so a
// test run leaves the working tree as it found it.
const SCREENSHOTS = process.argv.includes('--screenshots');
// `npm run e2e -- --outbound`: the outbound webhooks' walk alone, after sign-in (while working on it).
const OUTBOUND_ONLY = process.argv.includes('--outbound');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const { dir, log, held, finish } = browserRun('panel e2e', LIMIT_MS);

/** @type {string[]} */
const violations = [];
/** @type {string[]} */
const pageErrors = [];
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
    // Readable at this width: the page does not scroll sideways, and neither does any part of it.
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    check(overflow <= 0, `${name} @${width}px scrolls sideways by ${overflow}px`);
    const wide = await widerThanViewport(page);
    check(wide.length === 0, `${name} @${width}px has parts wider than the viewport: ${wide.join(', ')}`);
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  checkedPages += 1;
}

/**
 * The elements that reach past the viewport's right edge, or scroll sideways inside themselves (a
 * table in an overflow region included), each as tag.class; form controls scroll their own text.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<string[]>}
 */
async function widerThanViewport(page) {
  return /** @type {string[]} */ (
    await page.evaluate(`[...document.body.querySelectorAll('*')].filter((el) => {
      // A command to copy (pre.curl) is a labelled, focusable box that scrolls rather than break a token.
      if (el.matches('input, select, textarea, option, optgroup, .skip, .skip *, pre.curl')) return false;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) return false;
      const scrolls = /auto|scroll/.test(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1;
      return box.right > window.innerWidth + 1 || scrolls;
    }).slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).replaceAll(' ', '.') : ''))`)
  );
}

/** @param {import('playwright-core').Page} page @param {string} name */
async function shot(page, name, width = WIDTHS[0]) {
  if (!SCREENSHOTS) return;
  await page.setViewportSize({ width, height: width < 800 ? 800 : 900 });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

/** Where each step of the guided start is shot, at both widths (not committed). */
const GUIDED_SHOTS = new URL('../dist/panel-guided/', import.meta.url);

/**
 * Text a person cannot read whole: a control, badge, button or step whose text is wider than its
 * box (a select's chosen option measured against the box, less its arrow), or a word of a label,
 * button, badge, step or heading broken across two lines. Code and bodies may wrap anywhere.
 * @param {import('playwright-core').Page} page @returns {Promise<string[]>}
 */
async function cutOrBroken(page) {
  return /** @type {string[]} */ (
    await page.evaluate(`(() => {
      const found = [];
      const name = (el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).replaceAll(' ', '.') : '') + ' "' + (el.textContent || el.value || '').trim().slice(0, 30) + '"';
      const ctx = document.createElement('canvas').getContext('2d');
      for (const el of document.querySelectorAll('main select')) {
        const s = getComputedStyle(el);
        if (el.offsetParent === null) continue;
        ctx.font = s.font;
        const text = el.selectedOptions[0]?.textContent ?? '';
        const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 20;
        if (ctx.measureText(text).width > room + 1) found.push('cut ' + name(el) + ': ' + text);
      }
      // A text box's lines (a date format) each whole on one line of the box.
      for (const el of document.querySelectorAll('main textarea')) {
        const s = getComputedStyle(el);
        if (el.offsetParent === null) continue;
        ctx.font = s.font;
        const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        for (const line of (el.value || el.placeholder).split(String.fromCharCode(10))) {
          if (ctx.measureText(line).width > room + 1) found.push('cut ' + name(el) + ': ' + line);
        }
      }
      for (const el of document.querySelectorAll('main input, main button, main .button, main .badge, main .steps li, main th, main label')) {
        // Hidden, or visually hidden for screen readers only (a table's head as cards).
        if (el.offsetParent === null || el.getBoundingClientRect().width <= 1) continue;
        if (el.scrollWidth > el.clientWidth + 1 && !el.matches('input[type=checkbox]')) found.push('cut ' + name(el));
      }
      const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement.closest('code, pre, .key, option, script')) continue;
        for (const m of node.textContent.matchAll(/[\\p{L}\\p{N}]+/gu)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) found.push('broken word "' + m[0] + '" in ' + name(node.parentElement));
        }
      }
      return found.slice(0, 8);
    })()`)
  );
}

/** Where each outbound webhook page is shot, at both widths (not committed). */
const OUTBOUND_SHOTS = new URL('../dist/panel-outbound/', import.meta.url);

/**
 * One step of the guided start (or a page of another walk, shot into `shots`): axe, no sideways
 * scroll, nothing cut or broken at either width, and a screenshot at each.
 * @param {import('playwright-core').Page} page @param {string} name @param {URL} shots
 */
async function guidedCheck(page, name, shots = GUIDED_SHOTS) {
  await audit(page, name);
  mkdirSync(shots, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width < 800 ? 800 : 900 });
    await page.screenshot({ path: new URL(`${name}-${width}.png`, shots).pathname, fullPage: true });
    const bad = await cutOrBroken(page);
    check(bad.length === 0, `${name} @${width}px: text cut or broken:\n${bad.join('\n')}`);
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

const DEALERSHIP = {
  nome: 'Ana Souza',
  telefone: '(11) 91234-5678',
  email: 'ana.souza@example.com',
  veiculo: 'Onix LT 1.0 Turbo',
  data_compra: '15/03/2025',
  cnpj: '11.222.333/0001-81',
};

/**
 * Step 3: every suggested target of the dealership example, by value and in words; the date's
 * format in Portuguese letters; the same step in English, then back.
 * @param {import('playwright-core').Page} page
 */
async function checkMapping(page) {
  /** @type {Record<string, [string, string]>} */
  const expected = {
    nome: ['contact.name', 'Contato › Nome'],
    telefone: ['contact.phone', 'Contato › Telefone'],
    email: ['contact.email', 'Contato › E-mail'],
    veiculo: ['deal.custom_fields.veiculo', 'Negócio › Campo personalizado'],
    data_compra: ['contact.custom_fields.data_compra', 'Contato › Campo personalizado'],
    cnpj: ['company.cnpj', 'Empresa › CNPJ'],
  };
  for (const [field, [target, label]] of Object.entries(expected)) {
    const select = page.getByLabel(`Vai para: ${field}`, { exact: true });
    const chosen = await select.locator('option:checked').textContent();
    const value = await select.inputValue();
    check(chosen === label && value === target, `${field} suggested as ${chosen} (${value}), not ${label}`);
  }
  check(await page.getByText('Data no formato DD/MM/AAAA').isVisible(), 'the date format is not shown');
  await guidedCheck(page, 'guided-3-mapping');
  // The same step in English: nothing cut there either; then back to Portuguese.
  await page.getByRole('link', { name: 'English' }).click();
  await page
    .getByText('Pick where it goes in the CRM', { exact: false })
    .waitFor()
    .catch(() => {});
  check(
    (await page.getByLabel('Goes to: telefone', { exact: true }).locator('option:checked').textContent()) ===
      'Contact › Phone',
    'the English mapping does not name the phone target in words',
  );
  await guidedCheck(page, 'guided-3-mapping-en');
  await page.getByRole('link', { name: 'Português' }).click();
  await page.getByRole('button', { name: 'Salvar e continuar' }).waitFor();
}

/**
 * Step 4: the deal's name and how the contact is found, picked here (no need for the full form).
 * @param {import('playwright-core').Page} page
 */
async function pickActions(page) {
  check(
    (await page.getByLabel('Nome do negócio', { exact: true }).inputValue()) === '{{nome}} - {{veiculo}}',
    'the deal name is not suggested from the name and the vehicle',
  );
  check(
    await page.getByText('criar o negócio “Ana Souza - Onix LT 1.0 Turbo”').isVisible(),
    'the deal name is not shown with the example event',
  );
  // Built by picking: a field's button inserts it, and the example's name follows as it is typed.
  const box = page.getByLabel('Nome do negócio', { exact: true });
  await box.fill('{{veiculo}} para ');
  check(
    await page.getByText('criar o negócio “Onix LT 1.0 Turbo para”').isVisible(),
    'the example does not follow the typing',
  );
  await page.getByRole('button', { name: '{{nome}}', exact: true }).click();
  check(
    (await box.inputValue()) === '{{veiculo}} para {{nome}}',
    'the field button does not insert its field',
  );
  check(
    await page.getByText('criar o negócio “Onix LT 1.0 Turbo para Ana Souza”').isVisible(),
    'the example does not follow the picked field',
  );
  await box.fill('{{nome}} - {{veiculo}}');
  await page.getByRole('radio', { name: 'pelo telefone', exact: true }).check();
  await page.locator('select[name=deal_owner]').selectOption({ label: 'Beatriz Souza' });
}

/**
 * Just live: one banner, a flash that says the test leads are not recorded, and the full form of
 * the guided webhook with its keys, targets and date format whole at both widths.
 * @param {import('playwright-core').Page} page
 */
async function checkLive(page) {
  // The last step, now a summary under the one banner that says it is live: what is left (the
  // test leads are not recorded), the sender's URL and where to watch and change the webhook.
  check(
    await page.getByText('peça ao remetente um novo envio').isVisible(),
    'going live does not say the test leads are not recorded',
  );
  check(
    await page.getByText('O remetente envia cada lead para este endereço:').isVisible(),
    'the summary after going live does not give the URL',
  );
  await guidedCheck(page, 'guided-6-done');
  await page.getByRole('link', { name: 'Visão geral, configurações e modo de teste' }).click();
  await page.waitForURL(/\/panel\/webhooks\/\d+$/);
  // The full form of the guided webhook: its keys, targets and date format whole at both widths.
  check(
    (await page.locator('textarea[name="fields.4.formats"]').inputValue()).trim() === 'DD/MM/AAAA',
    'the full form does not show the date format of data_compra',
  );
  await guidedCheck(page, 'guided-7-full-form');
}

/**
 * The guided start from nothing to a live webhook: a name, one real event posted as a sender
 * would (fetch, as curl), each suggested target checked, the sentences, the test's preview, live,
 * and a real event that writes its contact.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key
 */
async function guidedStart(page, origin, key) {
  await page.getByRole('link', { name: 'Novo webhook' }).click();
  await page.waitForURL(/\/panel\/webhooks\/start$/);
  await guidedCheck(page, 'guided-1-name');
  await page.getByLabel('Nome', { exact: true }).fill('Concessionária Centro');
  await page.getByRole('button', { name: 'Criar e continuar' }).click();
  await page.waitForURL(/\/start\/2$/);
  await guidedCheck(page, 'guided-2-waiting');
  const url = String(await page.locator('#url').textContent());
  const sent = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(DEALERSHIP),
  });
  check(sent.status === 204, `the sender's event: ${sent.status}`);
  // panel.js looks again every 4 s and swaps the page in once the event is there.
  await page.getByText('Chegou um evento de teste').waitFor({ timeout: 30_000 });
  await guidedCheck(page, 'guided-2-arrived');
  await page.getByRole('link', { name: 'Continuar' }).click();
  await page.waitForURL(/\/start\/3$/);
  await checkMapping(page);
  await page.getByRole('button', { name: 'Salvar e continuar' }).click();
  await page.waitForURL(/\/start\/4$/);
  await pickActions(page);
  await page.getByText('Criar uma tarefa').click();
  await guidedCheck(page, 'guided-4-actions');
  await page.getByRole('button', { name: 'Salvar e continuar' }).click();
  await page.waitForURL(/\/start\/5$/);
  // The step 2 event went through no actions: no stale result shown as this setup's.
  check(
    await page.getByText('Nada foi testado ainda com a configuração atual').isVisible(),
    'step 5 shows an older test as the current setup’s result',
  );
  await page.getByRole('button', { name: 'Testar com o evento do passo 2' }).click();
  await page.getByText('O que este evento faria').waitFor({ timeout: 30_000 });
  check(
    await page
      .getByText(/Beatriz Souza/)
      .first()
      .isVisible(),
    'the preview does not name the owner',
  );
  await guidedCheck(page, 'guided-5-preview');
  await page.getByRole('link', { name: 'Continuar' }).click();
  await page.waitForURL(/\/start\/6$/);
  await guidedCheck(page, 'guided-6-live');
  await page.getByRole('button', { name: 'Passar para produção' }).click();
  await page.locator('.banner.production').waitFor();
  await checkLive(page);
  const real = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ...DEALERSHIP,
      nome: 'Bruno Lima',
      telefone: '11 98888-7777',
      email: 'bruno@example.com',
    }),
  });
  check(real.status === 204, `the live event: ${real.status}`);
  let written = false;
  for (let tries = 0; tries < 40 && !written; tries++) {
    const res = await fetch(`${origin}/v1/contacts`, { headers: { Authorization: `Bearer ${key}` } });
    const { data } = /** @type {{ data: { name: string }[] }} */ (await res.json());
    written = data.some((c) => c.name === 'Bruno Lima');
    if (!written) await page.waitForTimeout(500);
  }
  check(written, 'the live webhook wrote no contact for the real event');
  // The lead, found from the header across every webhook, by a phone typed another way.
  await page.getByRole('link', { name: 'Buscar lead' }).click();
  await page.getByLabel('Nome, telefone, e-mail ou CNPJ').fill('11912345678');
  await page.getByRole('button', { name: 'Buscar', exact: true }).click();
  await page.getByText('Ana Souza · (11) 91234-5678').first().waitFor();
  await guidedCheck(page, 'lead-search');
  await page.goto(`${origin}/panel/webhooks`);
}

/** A fresh account with a key, and a user to own what the flow creates. */
async function seedAccount() {
  if (SCREENSHOTS) mkdirSync(SHOTS, { recursive: true });
  await migrate(dir, log);
  const adminToken = randomBytes(24).toString('hex');
  // A local receiver (scripts/panel-e2e-outbound.mjs) on http://127.0.0.1: as .dev.vars would allow it.
  const vars = { OUTBOUND_ALLOW_HTTP_LOCALHOST: 'true' };
  const worker = await startWorker({ persistTo: dir, adminToken, log, vars });
  held.worker = worker;
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
  const browser = await playwright.launch({ executablePath, args: chromium.args });
  held.browser = browser;
  const context = await browser.newContext({ locale: 'pt-BR', viewport: { width: WIDTHS[0], height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // A script that throws (a syntax error in panel.js) fails the run, whatever the steps check.
  page.on('pageerror', (err) => pageErrors.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy/i.test(msg.text())) pageErrors.push(msg.text());
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
  // The full form, for experts, is reached from the guided start.
  await page.getByRole('link', { name: 'Formulário completo (para quem já conhece)' }).click();
  await page.waitForURL(/\/panel\/webhooks\/new$/);
  await audit(page, 'new webhook');
  await page.getByLabel('Nome', { exact: true }).fill('Formulário do site');
  await page.getByLabel('Chave 1').fill('email');
  await page.getByLabel('Destino 1').fill('contact.email');
  await page.getByRole('button', { name: 'Criar' }).click();
  const error = page.locator('#err-fields-0-type');
  check(
    (await error.textContent())?.includes('E-mail do contato (contact.email) aceita um campo do tipo E-mail'),
    'no error by the field',
  );
  check(
    (await page.getByLabel('Tipo 1').getAttribute('aria-invalid')) === 'true',
    'field not marked invalid',
  );
  await audit(page, 'new webhook (422)');
  await shot(page, 'new-webhook-422');
  // The date formats box shows on a date field only (panel.js follows the type).
  const formats = page.locator('textarea[name="fields.0.formats"]');
  check(!(await formats.isVisible()), 'the formats box shows on a text field');
  await page.getByLabel('Tipo 1').selectOption('date');
  check(await formats.isVisible(), 'the formats box does not show on a date field');
  await page.getByLabel('Tipo 1').selectOption('email');
  check(!(await formats.isVisible()), 'the formats box stays on an email field');
  // No fixed blank rows: "Adicionar um campo" adds one (from its template), focused; left blank, it is not saved.
  check(!(await page.getByLabel('Chave 2').count()), 'a blank second row is shown before it is asked for');
  await page.getByRole('button', { name: 'Adicionar um campo' }).click();
  check(
    (await page.evaluate('document.activeElement?.getAttribute("aria-label")')) === 'Chave 2',
    'the added field row is not focused',
  );
  await page.getByLabel('Tipo 2').selectOption('date');
  check(
    await page.locator('textarea[name="fields.1.formats"]').isVisible(),
    'the added date row has no formats box',
  );
  await page.getByRole('button', { name: 'Criar' }).click();
  await page.getByText('Salvo.').waitFor();
  // A webhook made in the panel starts in test mode.
  await page.locator('.banner.test').waitFor();
  const editUrl = page.url().replace(/\?.*$/, '');
  return editUrl;
}

/**
 * Test mode, a sample event and fields from it; then a flow: find the contact by email, owned by
 * a user picked by name.
 * @param {import('playwright-core').Page} page
 */
async function configureInTestMode(page) {
  await page.locator('.banner.test').waitFor();
  await editableTestSend(page);
  await page.getByRole('link', { name: 'Preencher com eventos de teste' }).click();
  await page
    .getByText('Campos dos eventos de teste adicionados')
    .waitFor()
    .catch(() => {});

  check(
    !(await page.locator('select[name="flows.0.action"]').count()),
    'a blank action is shown before it is asked for',
  );
  await page.getByRole('button', { name: 'Adicionar uma ação' }).click();
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

/**
 * The test send: a body prefilled from the fields, refused beside the text area when it is not
 * JSON (nothing sent), then sent as edited. @param {import('playwright-core').Page} page
 */
async function editableTestSend(page) {
  await page.getByRole('link', { name: 'Enviar evento de exemplo' }).click();
  const body = page.getByLabel('Corpo (JSON)');
  const prefilled = JSON.parse(await body.inputValue());
  check(typeof prefilled.email === 'string', 'the test body was not prefilled from the fields');
  await audit(page, 'test send');
  await shot(page, 'test-send', 375);
  await body.fill('{"email": ');
  await page.getByRole('button', { name: 'Enviar', exact: true }).click();
  await page.getByText('JSON inválido, nada foi enviado').waitFor();
  await audit(page, 'test send (invalid JSON)');
  await body.fill(JSON.stringify({ ...prefilled, origem: 'editado' }, null, 2));
  await page.getByRole('button', { name: 'Enviar', exact: true }).click();
  await page.getByText('Evento de exemplo enviado.').waitFor();
}

/**
 * The flow blocks: a blank block shows its action's options once one is chosen, blocks move up and
 * down (the positions follow), a round robin is ticked, a name template has a default.
 * @param {import('playwright-core').Page} page
 */
async function configureFlows(page) {
  await page.getByRole('button', { name: 'Adicionar uma ação' }).click();
  const name = page.locator('input[name="flows.1.name"]');
  const category = page.locator('input[name="flows.1.category"]');
  check(!(await name.isVisible()), 'a blank flow block shows options before an action is chosen');
  await page.locator('select[name="flows.1.action"]').selectOption('create_deal');
  check(await name.isVisible(), 'the deal block does not show its name');
  check(!(await category.isVisible()), 'the deal block shows a task option');
  check(!(await page.locator('input[name="flows.0.name"]').isVisible()), 'the contact block shows a name');
  await name.fill('Lead site - {{email|sem e-mail}}');
  await page.locator('input[name="flows.1.round_robin"]').first().check();
  await page.getByRole('button', { name: 'Descer a ação 1' }).click();
  const position = (/** @type {number} */ i) =>
    page.locator(`input[name="flows.${i}.position"]`).inputValue();
  check((await position(1)) === '1' && (await position(0)) === '2', 'moving down did not renumber');
  await page.getByRole('button', { name: 'Subir a ação 2' }).first().click();
  check((await position(0)) === '1' && (await position(1)) === '2', 'moving up did not renumber');
  await audit(page, 'edit webhook (flows)');
  await page.getByRole('button', { name: 'Salvar', exact: true }).click();
  await page.getByText('Salvo.').waitFor();
  check(
    (await page.locator('input[name="flows.1.name"]').inputValue()) === 'Lead site - {{email|sem e-mail}}',
    'the deal name template was not kept',
  );
  check(
    await page.locator('input[name="flows.1.round_robin"]').first().isChecked(),
    'the round robin was not kept',
  );
  // The expert form whole, with a row added and not yet filled: nothing cut at either width.
  await page.getByRole('button', { name: 'Adicionar um campo' }).click();
  await guidedCheck(page, 'expert-form');
}

/**
 * A change not saved asks before the page is left by a link (kept when dismissed); the form's own
 * save does not ask. @param {import('playwright-core').Page} page
 */
async function unsavedChangesAsk(page) {
  const url = page.url();
  /** @type {string[]} */
  const asked = [];
  const onDialog = (/** @type {import('playwright-core').Dialog} */ dialog) => {
    asked.push(dialog.type());
    void dialog.dismiss();
  };
  page.on('dialog', onDialog);
  const name = page.getByLabel('Nome', { exact: true });
  const was = await name.inputValue();
  await name.fill(`${was} (editado)`);
  await page.getByRole('link', { name: 'Eventos', exact: true }).click({ noWaitAfter: true });
  await page.waitForTimeout(500);
  check(asked.join() === 'beforeunload', `leaving with a change not saved asked: ${asked}`);
  check(page.url() === url && (await name.inputValue()) === `${was} (editado)`, 'the change was lost');
  await name.fill(was);
  await page.getByRole('button', { name: 'Salvar', exact: true }).click();
  await page.getByText('Salvo.').waitFor();
  check(asked.length === 1, 'saving the form itself asked before leaving');
  page.off('dialog', onDialog);
}

/** The copy button, a nicety of the one script; then a new URL. @param {import('playwright-core').Page} page */
async function copyAndRotateUrl(page) {
  const url = await page.locator('#url').textContent();
  await page.locator('button.js-copy').click();
  check((await page.evaluate('navigator.clipboard.readText()')) === url, 'copy did not copy the URL');

  await rotateWithGrace(page, url ?? '');
}

/**
 * Rotate asks first, on its own page: 24 hours checked, each choice with its end; with 1 hour the
 * old URL still takes events and the webhook's page shows until when.
 * @param {import('playwright-core').Page} page @param {string} oldUrl
 */
async function rotateWithGrace(page, oldUrl) {
  await page.getByRole('link', { name: 'Trocar URL' }).click();
  await page.getByRole('heading', { name: 'Trocar a URL do webhook?' }).waitFor();
  check(
    await page.locator('input[name="grace"][value="86400"]').isChecked(),
    'the 24-hour grace is not the default',
  );
  await audit(page, 'rotate confirmation');
  await shot(page, 'rotate-confirm', 375);
  await page.getByRole('radio', { name: /1 hora/ }).check();
  await page.getByRole('button', { name: 'Trocar a URL' }).click();
  await page.getByText('URL trocada.').waitFor();
  check((await page.locator('#url').textContent()) !== oldUrl, 'rotate kept the URL');
  await page.locator('#grace-end').waitFor();
  const old = await fetch(oldUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'antiga@example.com' }),
  });
  check(old.status === 204, `the old URL answered ${old.status} during its grace`);
}

/**
 * The overview on the webhook's page: the chart with its text alternative, the day totals, the
 * success rate and the last failure (the event replayed before fails again: no name to create a
 * contact with), whose link opens it.
 * @param {import('playwright-core').Page} page @param {string} editUrl
 */
async function checkOverview(page, editUrl) {
  await page.goto(editUrl);
  await page.getByRole('heading', { name: 'Visão geral: últimos 7 dias' }).waitFor();
  const chart = page.locator('figure.chart svg.wide[role="img"]');
  check(
    (await chart.locator('desc').textContent())?.includes('eventos nos últimos 7 dias'),
    'no chart summary',
  );
  check((await chart.locator('rect').count()) > 0, 'the chart has no bars');
  await page.getByText('Totais por dia').click();
  // Local days: 7, or 8 when the 7 days do not start at the person's midnight.
  const rows = await page.locator('details tbody tr').count();
  check(rows === 7 || rows === 8, `the day totals are ${rows} rows`);
  check(/%/.test((await page.locator('#success-rate').textContent()) ?? ''), 'no success rate');
  await audit(page, 'webhook overview');
  // At phone width the chart shown is the one in 4-hour bars, its days named under it.
  await page.setViewportSize({ width: 375, height: 800 });
  check(await page.locator('figure.chart svg.narrow').isVisible(), 'no phone-width chart at 375 px');
  check(!(await chart.isVisible()), 'the hourly chart still shows at 375 px');
  check((await page.locator('figure.chart svg.narrow text').count()) > 2, 'no day labels at 375 px');
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  await shot(page, 'webhook-overview');
  await shot(page, 'webhook-overview-375', 375);
  const last = page.locator('#last-failure a');
  if ((await last.count()) > 0) {
    await last.click();
    await page.waitForURL(/\/events\/\d+$/);
    await page.goto(editUrl);
  }
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
  await page.getByRole('link', { name: 'Enviar evento de exemplo' }).click();
  await page.getByRole('button', { name: 'Enviar', exact: true }).click();
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
  await page.getByRole('heading', { name: 'A chamada recebida' }).waitFor();
  await audit(page, 'event');
  await shot(page, 'event');
}

/**
 * The event page as a request inspector: the test event of the sample sent in test mode, its
 * preview in sentences, processed for real behind a confirmation; its page, pending, refreshes
 * itself until it settles. Then a refused call: its problem and the raw start of its body.
 * @param {import('playwright-core').Page} page @param {string} editUrl
 */
async function inspectEvents(page, editUrl) {
  // A sample in test mode now that the flows are set: its preview has records to tell.
  await page.goto(editUrl);
  await page.getByRole('button', { name: 'Passar para teste' }).click();
  await page.locator('.banner.test').waitFor();
  await page.getByRole('link', { name: 'Enviar evento de exemplo' }).click();
  await page.getByRole('button', { name: 'Enviar', exact: true }).click();
  await page.getByText('Evento de exemplo enviado.').waitFor();
  await page.getByRole('button', { name: 'Passar para produção' }).click();
  await page.locator('.banner.production').waitFor();
  // The first sample and this one, once the queue previewed it.
  for (let tries = 0; tries < 40; tries++) {
    await page.goto(`${editUrl}/events?status=test`);
    if ((await page.locator('td a[href*="/events/"]').count()) > 1) break;
    await page.waitForTimeout(500);
  }
  await page.locator('td a[href*="/events/"]').first().click();
  await page.getByRole('heading', { name: 'O que este evento faria em produção' }).waitFor();
  check(
    (await page
      .locator('.event p')
      .filter({ hasText: /^(Cria|Atualiza) o contato/ })
      .count()) === 1,
    'no preview sentence',
  );
  await page.getByText('Ver a pré-visualização em JSON').click();
  await page.getByRole('heading', { name: 'Histórico de tentativas' }).waitFor();
  await audit(page, 'event (test, preview)');
  await shot(page, 'event-test');
  await page.getByRole('button', { name: 'Processar de verdade' }).click();
  await page.getByText('grava registros reais no CRM').first().waitFor();
  await audit(page, 'process confirmation');
  await page.getByRole('button', { name: 'Sim, gravar registros reais' }).click();
  await page.getByText('Evento enviado para processar em produção.').waitFor();
  // panel.js looks again every 4 s and says so once the event settles. The local queue is quick
  // alone, but beside the parallel phase of `npm test` the event once took over 30 s to settle in
  // CI (why was not kept; an attempt that fails waits 10 s, then 20 s, for its retry:
  // src/queue/consumer.ts). 90 s covers two retries; a timeout now says where the event stood.
  await page
    .locator('[role=status].visually-hidden')
    .filter({ hasText: 'O evento foi concluído' })
    .waitFor({ timeout: 90_000 })
    .catch(async (err) => {
      const status = await page.locator('[data-status]').getAttribute('data-status');
      throw new Error(`the event did not settle (data-status ${status}): ${err.message}`);
    });
  check((await page.locator('[data-status]').getAttribute('data-status')) !== 'pending', 'still pending');
  await page.getByText('Enviado para processar de verdade').waitFor();
  await audit(page, 'event (processed for real)');

  await page.goto(editUrl);
  const url = (await page.locator('#url').textContent()) ?? '';
  const refused = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': '<b>x</b>' },
    body: '{"nome": "<img src=x onerror=alert(1)>", ]]>',
  });
  check(refused.status === 400, `the refused post answered ${refused.status}`);
  await page.goto(`${editUrl}/events?status=rejected`);
  await page.locator('td a[href*="/events/"]').first().click();
  await page.getByRole('heading', { name: 'Por que a chamada foi recusada' }).waitFor();
  await page.getByText('onerror=alert(1)>", ]]>').waitFor();
  check((await page.locator('img').count()) === 0, 'a sender tag rendered');
  await audit(page, 'event (refused)');
  await shot(page, 'event-refused', 375);
}

/**
 * On a phone the event log is stacked cards, each value with its column's name; the preferences
 * page sets the zone the times are shown in.
 * @param {import('playwright-core').Page} page @param {string} editUrl
 */
async function phoneAndZone(page, editUrl) {
  await page.goto(`${editUrl}/events`);
  await page.setViewportSize({ width: 375, height: 800 });
  const label = await page.evaluate(
    `getComputedStyle(document.querySelector('.scroll td'), '::before').content`,
  );
  check(label === '"Evento"', `the first cell of a card names its column: ${label}`);
  await shot(page, 'events-375', 375);
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  check(
    /\(Horário Padrão de Brasília\)/.test((await page.locator('time').first().textContent()) ?? ''),
    'times not in Brasília by default',
  );
  await page.getByRole('link', { name: 'Preferências' }).click();
  await page.waitForURL(/\/panel\/settings\?next=/);
  await audit(page, 'preferences');
  // The person's zone, not the account's below it (a change for everyone, with its own button).
  await page.getByLabel('Fuso horário', { exact: true }).selectOption('Europe/Lisbon');
  await page.getByRole('button', { name: 'Salvar', exact: true }).click();
  await page.waitForURL(/\/events$/);
  const shown = (await page.locator('time').first().textContent()) ?? '';
  check(!shown.includes('Brasília'), `the zone setting did not change the times: ${shown}`);
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
  // The delete's confirmation opens and is audited, not confirmed: the replay below needs the events.
  await page.locator('details.confirm summary', { hasText: 'Apagar os eventos deste filtro' }).click();
  await audit(page, 'events (delete this filter, confirmation)');
  await shot(page, 'events-delete-confirm');
  await page.locator('details.confirm summary', { hasText: 'Apagar os eventos deste filtro' }).click();
  await page.locator('details.confirm summary', { hasText: 'Reprocessar todas as falhas' }).click();
  await page.getByText('correspondem a este filtro').waitFor();
  await audit(page, 'events (replay all failed)');
  await page.getByRole('button', { name: /Sim, reprocessar \d+ agora/ }).click();
  await page.getByText(/\d+ reenviados?; nenhuma falha resta neste filtro\./).waitFor();
  await page.goto(editUrl);
}

/**
 * Disable the webhook; the list, in English through the switch; sign out ends the session.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} editUrl
 */
async function disableAndSignOut(page, origin, editUrl) {
  await page.goto(editUrl);
  await page.getByRole('link', { name: 'Desativar' }).click();
  await page.getByRole('heading', { name: 'Desativar este webhook?' }).waitFor();
  await audit(page, 'disable confirmation');
  await page.getByRole('button', { name: 'Desativar o webhook' }).click();
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

/** A `/v1` write with the account's key; the body's `data`. @param {string} origin @param {string} key @param {string} path @param {object} body */
async function apiCreate(origin, key, path, body) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  check(res.status === 201, `POST ${path}: ${res.status}`);
  return /** @type {{ data: { id: number } }} */ (await res.json()).data;
}

/**
 * The contact a processed event wrote, found in the event's result as a configurer would, and opened
 * in the panel (the result links the panel's page, or on an older event page the `/v1` path that
 * names the same contact); then a company, a deal and a task around it, reached by the links.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key @param {string} editUrl
 */
async function openRecords(page, origin, key, editUrl) {
  let contactId = '';
  for (let tries = 0; tries < 40 && !contactId; tries++) {
    await page.goto(`${editUrl}/events?status=processed`);
    const event = page.locator('td a[href*="/events/"]').first();
    if (await event.count()) {
      await event.click();
      const result = page.locator('a[href*="/contacts/"]');
      const href = (await result.count()) ? await result.first().getAttribute('href') : null;
      contactId = href?.match(/\/contacts\/(\d+)$/)?.[1] ?? '';
    }
    if (!contactId) await page.waitForTimeout(500);
  }
  check(contactId, 'no processed event links the contact it wrote');
  const company = await apiCreate(origin, key, '/v1/companies', {
    name: 'Auto Center Exemplo',
    cnpj: '11222333000181',
  });
  const deal = await apiCreate(origin, key, '/v1/deals', {
    name: 'Lead site - Exemplo',
    contact_id: Number(contactId),
    company_id: company.id,
    value: 89900,
    custom_fields: { veiculo: 'Onix' },
  });
  await apiCreate(origin, key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Ligar',
    category: 'Retorno',
    due_date: '2026-11-24T19:41:00Z',
  });
  const inPanel = page.locator(`a[href="/panel/contacts/${contactId}"]`);
  if (await inPanel.count()) await inPanel.first().click();
  else await page.goto(`${origin}/panel/contacts/${contactId}`);
  await page.getByText(`Contato #${contactId}`).waitFor();
  await audit(page, 'contact');
  await shot(page, 'contact', 375);
  await page.getByRole('link', { name: 'Lead site - Exemplo', exact: true }).click();
  await page.getByText(/R\$\s89\.900,00/).waitFor();
  await audit(page, 'deal');
  await shot(page, 'deal');
  await page.getByRole('link', { name: 'Ligar' }).click();
  await page.getByText('Retorno').waitFor();
  await audit(page, 'task');
  await page.getByRole('link', { name: 'Lead site - Exemplo', exact: true }).click();
  await page.getByRole('link', { name: 'Auto Center Exemplo' }).click();
  await page.getByText('11.222.333/0001-81').waitFor();
  await audit(page, 'company');
}

/** Where the import page is shot, at both widths (not committed). */
const IMPORT_SHOTS = new URL('../dist/panel-import/', import.meta.url);

/**
 * The import page as a person uses it: a pt-BR Excel-style file (`;`, a column it does not know, a
 * header with markup, a bad row), its columns and first rows, one column remapped, the import run
 * to its end with the progress polled, the failed rows offered; then the recent imports.
 * @param {import('playwright-core').Page} page @param {string} origin
 */
async function importWalk(page, origin) {
  await page.goto(`${origin}/panel/imports`);
  await guidedCheck(page, 'import-form', IMPORT_SHOTS);
  const csv =
    'Nome;E-mail;Telefone;Apelido;<b>Obs</b>\nMaria Souza;maria@exemplo.com.br;(11) 98765-4321;Mari;x\nJoão Lima;não-é-email;;Jo;y\n';
  await page.setInputFiles('#file', { name: 'contatos.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.selectOption('#resource', 'contacts');
  await page.getByRole('button', { name: 'Ver as colunas e as primeiras linhas' }).click();
  await page.getByRole('heading', { name: 'As primeiras linhas' }).waitFor();
  check(
    await page.getByText('<b>Obs</b>', { exact: true }).count(),
    'the header with markup is not shown as text',
  );
  await guidedCheck(page, 'import-preview', IMPORT_SHOTS);
  await page.selectOption('#map-3', 'external_id');
  await page.getByRole('button', { name: 'Importar', exact: true }).click();
  await page.getByRole('link', { name: 'Baixar as linhas com erro (CSV)' }).waitFor({ timeout: 60_000 });
  await page.getByText('Concluída').waitFor();
  await guidedCheck(page, 'import-done', IMPORT_SHOTS);
  await page.getByRole('link', { name: 'Importações recentes' }).click();
  await page.locator('td a[href^="/panel/imports/"]').first().waitFor();
  await guidedCheck(page, 'import-list', IMPORT_SHOTS);
}

async function main() {
  const { origin, key } = await seedAccount();
  const page = await openPage(origin);
  await signIn(page, origin, key);
  if (OUTBOUND_ONLY) {
    await outboundWalk(page, origin, key, (p, name) => guidedCheck(p, name, OUTBOUND_SHOTS));
    return report();
  }
  await guidedStart(page, origin, key);
  const editUrl = await createWebhook(page);
  await configureInTestMode(page);
  await configureFlows(page);
  await unsavedChangesAsk(page);
  await copyAndRotateUrl(page);
  await replayAFailedEvent(page, editUrl);
  await checkOverview(page, editUrl);
  await findALeadAndReplayAll(page, editUrl);
  await browseEvents(page);
  await inspectEvents(page, editUrl);
  await openRecords(page, origin, key, editUrl);
  await outboundWalk(page, origin, key, (p, name) => guidedCheck(p, name, OUTBOUND_SHOTS));
  await importWalk(page, origin);
  await phoneAndZone(page, editUrl);
  await disableAndSignOut(page, origin, editUrl);
  report();
}

/** Fails on a script error or a serious axe violation; says how many pages were checked. */
function report() {
  check(pageErrors.length === 0, `CSP violations or script errors:\n${pageErrors.join('\n')}`);
  check(violations.length === 0, `axe found serious or critical violations:\n${violations.join('\n')}`);
  console.log(
    `panel e2e: ${checkedPages} pages checked with axe at ${WIDTHS.join(' and ')} px, 0 serious/critical`,
  );
  if (lesser.length) console.log(`minor/moderate:\n${lesser.join('\n')}`);
}

await finish(main);
