// The benchmark account's webhook event log: one webhook and `rows` events received over the last
// 25 days (inside the 30-day retention, so the cron's purge keeps them), with leads whose names,
// emails and phones (in the formats senders use) the event search finds. The migration's triggers
// index each event as it is inserted, as ingest's insert would.
import { ascii, FIRST_NAMES, SURNAMES } from './names.mjs';

const DAY_MS = 86_400_000;
// Events are longer rows than the other tables': fewer per INSERT keeps each under D1's 100 KB.
const ROWS_PER_INSERT = 150;
export const WEBHOOK_ID = 1;
const AREAS = [11, 21, 31, 41, 47, 51, 61, 71, 81, 85];
const DOMAINS = ['gmail.com', 'hotmail.com', 'uol.com.br', 'exemplo.com.br', 'terra.com.br'];
const ORIGINS = ['site', 'instagram', 'facebook', 'google', 'indicação', 'feirão'];
const MODELS = ['Onix', 'HB20', 'Polo', 'Kwid', 'Compass', 'T-Cross', 'Corolla', 'Hilux'];

/** @param {string | number} value */
const literal = (value) => (typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`);

/** Phone `n` (area + 9 + 8 digits) in one of four formats senders use. @param {number} i */
function phoneOf(i) {
  const area = AREAS[i % AREAS.length];
  const line = String(10_000_000 + ((i * 7_919) % 89_999_999)).padStart(8, '0');
  const digits = `${area}9${line}`;
  const format = [
    `(${area}) 9${line.slice(0, 4)}-${line.slice(4)}`,
    digits,
    `+55 ${area} 9${line.slice(0, 4)} ${line.slice(4)}`,
    `+55${digits}`,
  ][i % 4];
  return { digits, shown: String(format) };
}

/** Lead `i` of the log (1-based), the same on every run. @param {number} i */
function leadOf(i) {
  const first = FIRST_NAMES[(i * 13) % FIRST_NAMES.length] ?? 'Ana';
  const last = SURNAMES[(i * 29) % SURNAMES.length] ?? 'Silva';
  const email = `${ascii(first)}.${ascii(last)}${i}@${DOMAINS[i % DOMAINS.length]}`;
  return { name: `${first} ${last}`, email, phone: phoneOf(i) };
}

/**
 * The webhook and its events: 88% processed, 8% failed, 4% refused (no payload, the kept start of
 * the body), 5% with a warning; newest last by id, as ingest writes them.
 * @param {{ accountId: number, rows: number, now: number }} options
 */
export function seedEvents({ accountId, rows, now }) {
  const fields = JSON.stringify([
    { key: 'lead.nome', type: 'string', required: true, target: 'contact.name' },
    { key: 'lead.telefone', type: 'phone', target: 'contact.phone' },
    { key: 'lead.email', type: 'email', target: 'contact.email' },
  ]);
  const hook = `INSERT INTO inbound_webhooks (id, account_id, name, token, enabled, mode, fields, flows, created_at, updated_at)
VALUES (${WEBHOOK_ID}, ${accountId}, 'Leads do site (seeded)', 'whk_bench_seeded_${accountId}', 1, 'production', ${literal(fields)}, '[]', ${now - 30 * DAY_MS}, ${now - 30 * DAY_MS});`;
  const start = now - 25 * DAY_MS;
  const values = [];
  for (let i = 1; i <= rows; i++) {
    const lead = leadOf(i);
    const at = Math.floor(start + ((i - 1) * 25 * DAY_MS) / rows);
    const refused = i % 25 === 0;
    const failed = !refused && i % 12 === 0;
    const payload = refused
      ? 'null'
      : JSON.stringify({
          lead: { nome: lead.name, telefone: lead.phone.shown, email: lead.email },
          veiculo: { modelo: MODELS[i % MODELS.length] },
          origem: ORIGINS[i % ORIGINS.length],
        });
    const warnings =
      i % 20 === 0 ? '[{"path":"lead.telefone","code":"dropped","message":"Not a phone"}]' : '[]';
    const rejection = refused
      ? JSON.stringify({
          status: 400,
          code: 'invalid_json',
          detail: 'The body is not valid JSON.',
          body: `{"lead": {"nome": "${lead.name}"`,
        })
      : null;
    const status = refused ? 'rejected' : failed ? 'failed' : 'processed';
    values.push(
      `(${accountId},${WEBHOOK_ID},'production',${literal(status)},1,${failed ? "'Owner unavailable'" : 'NULL'},${literal(payload)},'{}',${at},${at},${refused ? 'NULL' : at + 900},${literal(warnings)},${rejection ? literal(rejection) : 'NULL'})`,
    );
  }
  const inserts = [];
  for (let i = 0; i < values.length; i += ROWS_PER_INSERT) {
    inserts.push(
      `INSERT INTO inbound_events (account_id, webhook_id, mode, status, attempts, error, payload, headers, received_at, queued_at, processed_at, warnings, rejection) VALUES\n${values.slice(i, i + ROWS_PER_INSERT).join(',\n')};`,
    );
  }
  const middle = leadOf(Math.floor(rows / 2) + 1);
  return {
    sql: [hook, ...inserts].join('\n'),
    count: rows,
    probe: {
      webhookId: WEBHOOK_ID,
      eventName: middle.name,
      eventEmail: middle.email,
      // Typed in another format than the one stored, as a person would.
      eventPhone: `(${middle.phone.digits.slice(0, 2)}) ${middle.phone.digits.slice(2, 7)}-${middle.phone.digits.slice(7)}`,
      eventDay: new Date(now - 10 * DAY_MS).toISOString().slice(0, 10),
    },
  };
}
