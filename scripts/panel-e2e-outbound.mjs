// The outbound webhooks' walk of `npm run e2e` (scripts/panel-e2e.mjs runs it): an endpoint made
// in the panel to a local HTTP receiver (http://127.0.0.1:<port>, allowed by
// OUTBOUND_ALLOW_HTTP_LOCALHOST = "true", as docs/outbound-webhooks.md says for local development)
// that verifies every message with the `standardwebhooks` package; its secret copied, a test
// ping, a rotation, the delivery log with a failure, recover and resend, and disable.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { check } from './browser-run.mjs';

/**
 * A receiver on a free local port: it verifies each message with the secrets it is given, records
 * it, and answers `status` (200 with a short body, or 500 while `failing`).
 */
export async function localReceiver() {
  /** @type {{ id: string, type: string, verified: boolean }[]} */
  const received = [];
  const state = { secrets: /** @type {string[]} */ ([]), failing: false };
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = /** @type {Record<string, string>} */ (req.headers);
      const verified = state.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      let type = '';
      try {
        type = JSON.parse(body).type;
      } catch {}
      received.push({ id: headers['webhook-id'] ?? '', type, verified });
      const status = state.failing ? 500 : 200;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(
        state.failing ? '{"error":"<b>ERP fora do ar</b>"}' : '{"ok":true,"received":"<script>x</script>"}',
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  server.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/crm`, received, state, close: () => server.close() };
}

/**
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key
 * @param {(page: import('playwright-core').Page, name: string) => Promise<void>} checked axe, no sideways scroll, nothing cut, screenshots
 */
export async function outboundWalk(page, origin, key, checked) {
  const receiver = await localReceiver();
  try {
    await walk(page, origin, key, checked, receiver);
  } finally {
    receiver.close();
  }
}

/** @param {import('playwright-core').Page} page */
const secretShown = async (page) => (await page.locator('#secret').textContent())?.trim() ?? '';

/**
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key
 * @param {(page: import('playwright-core').Page, name: string) => Promise<void>} checked
 * @param {Awaited<ReturnType<typeof localReceiver>>} receiver
 */
async function walk(page, origin, key, checked, receiver) {
  await page.goto(`${origin}/panel/webhooks`);
  await page.getByRole('link', { name: 'Webhooks de saída' }).click();
  await page.getByText('Nenhum endpoint ainda.').waitFor();
  await checked(page, 'endpoints-empty');
  await page.getByRole('link', { name: 'Novo endpoint' }).click();
  // Refused first: an IP address, said next to the field.
  await page.getByLabel('URL').fill('https://10.0.0.1/crm');
  await page.getByLabel('Descrição').fill('ERP da loja');
  await page.getByLabel(/Todos os eventos de empresas/).check();
  await page.getByLabel(/Negócio alterado/).check();
  await page.getByRole('button', { name: 'Criar endpoint' }).click();
  await page.getByText('Use um nome de host, não um endereço IP.').waitFor();
  await checked(page, 'endpoint-new-422');
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Criar endpoint' }).click();
  await page.getByText('não aparece de novo').waitFor();
  const secret = await secretShown(page);
  check(/^whsec_/.test(secret), `no secret shown after create: ${secret}`);
  await page.getByRole('button', { name: 'Copiar' }).click();
  const copied = await page.evaluate('navigator.clipboard.readText()');
  check(copied === secret, `the copy button copied ${copied}`);
  await checked(page, 'endpoint-secret');
  receiver.state.secrets = [secret];
  await page.getByRole('link', { name: 'Ir para o endpoint' }).click();
  check(!(await page.content()).includes(secret), 'the endpoint page shows the secret again');
  await checked(page, 'endpoint');

  await page.getByRole('button', { name: 'Enviar teste (ping)' }).click();
  await page.getByText('O endpoint aceitou o ping.').waitFor();
  check(
    receiver.received.some((m) => m.type === 'ping' && m.verified),
    'the receiver got no verified ping',
  );
  await checked(page, 'endpoint-test');
  await page.getByRole('link', { name: 'Voltar' }).click();

  await page.getByRole('button', { name: 'Trocar segredo' }).click();
  await page.getByText('Por quanto tempo o segredo atual continua assinando?').waitFor();
  await checked(page, 'endpoint-rotate');
  await page.getByRole('button', { name: 'Trocar o segredo' }).click();
  await page.getByText('O segredo anterior continua assinando junto até').waitFor();
  const rotated = await secretShown(page);
  check(rotated !== secret && /^whsec_/.test(rotated), 'no new secret after rotate');
  receiver.state.secrets = [rotated];
  const editUrl = new URL(
    (await page.getByRole('link', { name: 'Ir para o endpoint' }).getAttribute('href')) ?? '',
    origin,
  ).href;

  await failedDeliveries(page, origin, key, editUrl, receiver);
  await checked(page, 'endpoint-log');
  await recoverAndResend(page, receiver, checked);

  await page.goto(editUrl);
  await page.getByRole('button', { name: 'Desativar' }).click();
  await page.getByText('Desativar o endpoint?').waitFor();
  await checked(page, 'endpoint-disable');
  await page.getByRole('button', { name: 'Desativar' }).click();
  await page.getByText('Endpoint desativado.').waitFor();
  await page.goto(`${origin}/panel/endpoints`);
  await checked(page, 'endpoints');
  await page.goto(`${origin}/panel/lang/en?next=${encodeURIComponent(new URL(editUrl).pathname)}`);
  await page.getByText('Every event of companies').first().waitFor();
  await checked(page, 'endpoint-en');
  await page.goto(`${origin}/panel/lang/pt-BR?next=/panel/endpoints`);
}

/**
 * The receiver fails while a company is created through `/v1`: the fan-out's delivery and its
 * first attempt show in the log as failed, the answer escaped.
 * @param {import('playwright-core').Page} page @param {string} origin @param {string} key @param {string} editUrl
 * @param {Awaited<ReturnType<typeof localReceiver>>} receiver
 */
async function failedDeliveries(page, origin, key, editUrl, receiver) {
  receiver.state.failing = true;
  const res = await fetch(`${origin}/v1/companies`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Oficina Exemplo', cnpj: '45454545000106' }),
  });
  check(res.status === 201, `POST /v1/companies: ${res.status}`);
  for (let tries = 0; tries < 60; tries++) {
    await page.goto(`${editUrl}/deliveries`);
    if (await page.getByText('Empresa criada').count()) break;
    await page.waitForTimeout(500);
  }
  await page.getByText('Empresa criada').first().waitFor();
  for (let tries = 0; tries < 60 && !(await page.getByText(/ERP fora do ar/).count()); tries++) {
    await page.waitForTimeout(500);
    await page.reload();
  }
  const summary = page.getByText('Ver a resposta').first();
  await summary.click();
  await page.getByText('{"error":"<b>ERP fora do ar</b>"}').first().waitFor();
}

/**
 * @param {import('playwright-core').Page} page @param {Awaited<ReturnType<typeof localReceiver>>} receiver
 * @param {(page: import('playwright-core').Page, name: string) => Promise<void>} checked
 */
async function recoverAndResend(page, receiver, checked) {
  receiver.state.failing = false;
  await page.getByRole('button', { name: 'Reenviar as falhas' }).click();
  await page.getByText('Reenviar as entregas que falharam?').waitFor();
  await checked(page, 'endpoint-recover');
  await page.getByRole('button', { name: 'Reenviar as falhas' }).click();
  await page.getByText(/entregas? reenviadas?\.|Nenhuma entrega a reenviar/).waitFor();
  const resend = page.getByRole('button', { name: 'Reenviar', exact: true }).first();
  if (await resend.count()) {
    await resend.click();
    await page.getByText(/Entrega reenviada|ainda está sendo tentada/).waitFor();
  }
}
