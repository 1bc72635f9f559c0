// The fault drill's webhook and its burst of events: what each event is for and what it should
// leave behind. Deterministic (a seeded PRNG), so two runs with the same settings send the same
// events in the same order.
import { FIRST_NAMES, prng, SURNAMES } from './names.mjs';

/**
 * The README's example webhook with a `ref` per event: the deal and the task carry it in their
 * names, so every record can be traced to the event that made it. Deals go round robin to `users`.
 * @param {number[]} users
 */
export const webhookConfig = (users) => ({
  name: 'Fault drill',
  fields: [
    { key: 'ref', type: 'string', required: true },
    { key: 'nome', type: 'string', target: 'contact.name' },
    { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
    { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
    { key: 'data_compra', type: 'date', required: true },
    { key: 'valor', type: 'number', target: 'deal.value' },
  ],
  flows: [
    { action: 'upsert_contact', match_on: ['phone'] },
    { action: 'create_deal', name: '{{ref}} {{nome}} - {{veiculo}}', owner: { round_robin: users } },
    {
      action: 'create_task',
      name: 'Revisão {{ref}}',
      category: 'Pós-venda',
      due: { from: 'data_compra', days: 365 },
      owner: { user_id: users[0] },
    },
  ],
});

/** Every rejected event carries this in its key and body: D1 must hold nothing that contains it. */
export const REJECTED_MARK = 'rj-';

/** The kinds of event in a burst, in the order a report lists them. */
export const KINDS = {
  plain: 'a lead: its contact (matched by phone), a deal and a task',
  consumer: 'a lead with "__fault": "consumer": its first processing attempt throws',
  send: 'a lead with "__fault": "send": no Queue send, only the cron hands it over',
  orphan: 'no name and a phone no contact has: fails with a reason',
  duplicate: 'an earlier event again: same Idempotency-Key and body, as a retry',
  malformed: 'malformed JSON',
  missing: 'no telefone (required)',
  wrong_type: 'a number for data_compra (a date)',
  bad_key: 'an Idempotency-Key over 255 characters',
};

/**
 * @typedef {keyof typeof KINDS} Kind
 * @typedef {'plain' | 'consumer' | 'send' | 'orphan'} StoredKind
 * @typedef {'malformed' | 'missing' | 'wrong_type' | 'bad_key'} RejectedKind
 *
 * @typedef {object} DrillEvent
 * @property {number} index its place in the burst
 * @property {Kind} kind
 * @property {string} key its Idempotency-Key
 * @property {string} body the raw body
 * @property {StoredKind} [stores] what the event stores (a duplicate: its original's kind)
 */

/**
 * Shares of the burst, each between 0 and 1: `duplicates` and `invalid` of all events, and the
 * rest split between faults, orphans and plain leads.
 * @typedef {{ duplicates: number, invalid: number, consumerFaults: number, sendFaults: number, orphans: number }} Shares
 */

const VEHICLES = ['Onix LT', 'HB20 Sense', 'Kwid Zen', 'Strada Freedom', 'T-Cross 200 TSI', 'Corolla XEi'];
/** How far back a close repeat looks: about one round of the senders. */
const RECENT = 50;
const REJECTED = /** @type {const} */ (['malformed', 'missing', 'wrong_type', 'bad_key']);

/**
 * Mobile number `n` of area code 11, written as senders write it (E.164, masked, digits only):
 * the API must still see one phone.
 * @param {number} n @param {number} style
 */
function phone(n, style) {
  const digits = String(10_000_000 + n);
  const local = `9${digits.slice(0, 4)}-${digits.slice(4)}`;
  return [`+55 11 ${local}`, `(11) ${local}`, `119${digits}`][style % 3] ?? '';
}

/**
 * The burst: `count` events in sending order.
 * @param {{ count: number, shares: Shares, seed: number }} options
 * @returns {DrillEvent[]}
 */
export function drillEvents({ count, shares, seed }) {
  const random = prng(seed);
  /** @param {number} n */
  const below = (n) => Math.floor(random() * n);
  // About four leads per phone, and one lead in ten for one of five phones: concurrent events race
  // to create, then to update, one contact.
  const phones = Math.max(1, Math.round(count / 4));
  /** @type {DrillEvent[]} */
  const events = [];
  /** @type {DrillEvent[]} */
  const originals = [];
  for (let index = 0; index < count; index++) {
    const roll = random();
    // Half of the repeats follow their original closely, so the two are often in flight together.
    const recent = Math.min(originals.length, RECENT);
    const original =
      random() < 0.5 ? originals[originals.length - 1 - below(recent)] : originals[below(originals.length)];
    if (roll < shares.duplicates && original) {
      events.push({ ...original, index, kind: 'duplicate' });
      continue;
    }
    const n = random() < 0.1 ? below(5) : below(phones);
    const lead = {
      ref: `ev-${index}`,
      nome: `${FIRST_NAMES[n % FIRST_NAMES.length]} ${SURNAMES[(n * 7) % SURNAMES.length]}`,
      telefone: phone(n, below(3)),
      veiculo: VEHICLES[below(VEHICLES.length)],
      data_compra: `2025-${1 + below(12)}-${1 + below(28)}`,
      valor: 40_000 + below(110_000),
    };
    if (roll < shares.duplicates + shares.invalid) {
      const kind = REJECTED[below(REJECTED.length)] ?? 'malformed';
      const ref = `${REJECTED_MARK}${index}`;
      const marked = { ...lead, ref, nome: `Rejeitado ${ref}` };
      const body = {
        malformed: () => JSON.stringify(marked).slice(0, -8),
        missing: () => JSON.stringify({ ...marked, telefone: undefined }),
        wrong_type: () => JSON.stringify({ ...marked, data_compra: 20250305 }),
        bad_key: () => JSON.stringify(marked),
      }[kind]();
      events.push({ index, kind, key: kind === 'bad_key' ? ref.padEnd(256, 'x') : ref, body });
      continue;
    }
    const rest = (roll - shares.duplicates - shares.invalid) / (1 - shares.duplicates - shares.invalid);
    /** @type {StoredKind} */
    const kind =
      rest < shares.consumerFaults
        ? 'consumer'
        : rest < shares.consumerFaults + shares.sendFaults
          ? 'send'
          : rest < shares.consumerFaults + shares.sendFaults + shares.orphans
            ? 'orphan'
            : 'plain';
    const body =
      kind === 'orphan'
        ? { ...lead, nome: undefined, telefone: phone(phones + index, 0) }
        : { ...lead, ...(kind !== 'plain' && { __fault: kind }) };
    const event = { index, kind, key: lead.ref, body: JSON.stringify(body), stores: kind };
    events.push(event);
    originals.push(event);
  }
  return events;
}
