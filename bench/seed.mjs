// The benchmark account's data, as one SQL file of multi-row INSERTs for `wrangler d1 execute`:
// one statement per few hundred rows instead of one HTTP call per row. Deterministic (a seeded
// PRNG), so two runs at the same size hold the same rows, their times relative to `now`.
//
// Stored forms come from the API's own code (Node strips the types of these two dependency-free
// files), so a seeded row is exactly what the API would have written: canonical 14-character
// CNPJs, `*_norm` columns through normalizeText and `*_fold` ones through foldText.
import { canonicalCnpj } from '../src/core/cnpj.ts';
import { foldText, normalizeText } from '../src/core/text.ts';
import { ascii, FIRST_NAMES, list, prng, SURNAMES } from './names.mjs';
import { seedEvents } from './seed-events.mjs';

const DAY_MS = 86_400_000;
/** Rows per INSERT: keeps each statement well under D1's 100 KB statement limit. */
const ROWS_PER_INSERT = 400;

// The same team at every size, so a comparison of sizes changes only how much data there is.
export const USERS = 20;
export const CATEGORIES = list(`
  Ligação, Reunião, E-mail, Visita, Proposta, Follow-up, Demonstração, WhatsApp
`);
export const SEGMENTS = list(`
  Varejo, Indústria, Serviços, Agronegócio, Tecnologia, Saúde, Educação, Construção Civil,
  Logística, Alimentação, Financeiro, Automotivo
`);

const ACTIVITIES = list(`
  Comércio de Alimentos, Materiais de Construção, Auto Peças, Transportes, Tecnologia,
  Engenharia, Distribuidora, Farmácia, Confecções, Agropecuária, Consultoria, Serviços Médicos,
  Metalúrgica, Móveis, Calçados, Informática, Logística, Laticínios, Papelaria, Cerâmica
`);
const FANTASY = list(`
  Nova Era, Boa Vista, São Jorge, Santa Luzia, Estrela do Norte, Três Irmãos, Primavera,
  Horizonte, Ipê Amarelo, Aurora, Guanabara, Cerrado, Pantanal, Sertão, Ribeirão Preto, Açaí,
  Jequitibá, Paraná, Maracanã, Caiçara
`);
const COMPANY_SUFFIXES = ['Ltda', 'Ltda', 'Ltda', 'S.A.', 'ME', 'EPP'];
const DOMAINS = [
  'gmail.com',
  'hotmail.com',
  'uol.com.br',
  'terra.com.br',
  'exemplo.com.br',
  'empresa.com.br',
];
const AREA_CODES = [11, 11, 11, 21, 21, 31, 41, 47, 48, 51, 61, 62, 71, 81, 85, 91, 92, 19, 27, 84];
const OBSERVATIONS = [
  'Cliente desde 2019, prefere contato por WhatsApp.',
  'Pagamento via boleto com vencimento no dia 10.',
  'Atendimento somente pela manhã.',
  'Renegociar contrato no próximo trimestre.',
  'Indicação do Sr. Ribeiro, da filial de Campinas.',
  'Exige nota fiscal com destaque de ISS.',
];
const PRODUCTS = list(`
  Plano Empresarial, Licença ERP, Consultoria Tributária, Frota de 10 veículos, Manutenção Anual,
  Treinamento NR-35, Software de Gestão, Implantação de CRM, Seguro Patrimonial, Onix LT
`);
const DEAL_KINDS = ['Proposta', 'Renovação', 'Contrato', 'Ampliação'];
const TASK_NAMES = list(`
  Ligar para o cliente, Enviar proposta revisada, Reunião de alinhamento, Visitar a unidade,
  Cobrar retorno, Enviar contrato para assinatura, Confirmar dados de faturamento,
  Apresentar demonstração
`);
const TASK_DESCRIPTIONS = [
  'Confirmar prazo de entrega e condições de pagamento.',
  'Levar catálogo atualizado e tabela de preços.',
  'Verificar se o financeiro aprovou o orçamento.',
  'Falar com o responsável pelo setor de compras.',
];

/**
 * The Receita Federal's modulo 11 check digit (each character worth its ASCII code minus 48), as in
 * src/core/cnpj.ts, which keeps its own private.
 * @param {string} base
 */
function checkDigit(base) {
  let sum = 0;
  for (let i = 0; i < base.length; i++) sum += (base.charCodeAt(i) - 48) * (((base.length - 1 - i) % 8) + 2);
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/**
 * The `n`-th CNPJ (n < 10^8), canonical: distinct for every n, so seeded rows and the benchmark's
 * POSTs never collide. Every tenth is one of the alphanumeric CNPJs issued since July 2026.
 * @param {number} n
 */
export function cnpjFor(n) {
  // 7919 is coprime with 10^8, so n -> root is one-to-one.
  let root = String((n * 7919) % 100_000_000).padStart(8, '0');
  if (n % 10 === 0) root = String.fromCharCode(65 + Number(root[0]), 65 + Number(root[1])) + root.slice(2);
  const base = `${root}0001`;
  const first = checkDigit(base);
  const cnpj = `${base}${first}${checkDigit(base + first)}`;
  // The API's own validator has the last word.
  if (canonicalCnpj(cnpj) !== cnpj) throw new Error(`generated an invalid CNPJ ${cnpj}`);
  return cnpj;
}

/** `12345678000195` -> `12.345.678/0001-95`, the form a person types. @param {string} cnpj */
export const maskCnpj = (cnpj) =>
  `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;

/** @typedef {Record<string, string | number | null>} Row column name -> value */

/** @param {string | number | null} value */
function literal(value) {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Multi-row INSERTs of `rows` (all with the same columns) into `table`.
 * @param {string} table @param {Row[]} rows
 */
function inserts(table, rows) {
  const columns = Object.keys(rows[0] ?? {}).join(',');
  const statements = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const values = rows
      .slice(i, i + ROWS_PER_INSERT)
      .map((row) => `(${Object.values(row).map(literal).join(',')})`)
      .join(',\n');
    statements.push(`INSERT INTO ${table} (${columns}) VALUES\n${values};`);
  }
  return statements.join('\n');
}

/**
 * @typedef {object} Seeded
 * @property {string} sql the whole file
 * @property {Record<string, number>} counts rows per table
 * @property {Probe} probe values the benchmark filters on, taken from the rows themselves
 *
 * @typedef {object} Probe
 * @property {number} rows companies, contacts, deals and tasks each hold ids 1..rows
 * @property {string} companyName @property {string} companyCnpj canonical
 * @property {number} dealId the deal with the most tasks
 * @property {number} createdFrom @property {number} createdTo a month of creation times (ms)
 * @property {number} now when the data was generated: due dates lie around it
 * @property {number} webhookId the seeded webhook, whose event log holds `rows` events
 * @property {string} eventName @property {string} eventEmail @property {string} eventPhone a lead of the log
 * @property {string} eventDay a day of the log (YYYY-MM-DD)
 */

/**
 * One account's companies, contacts, deals and tasks (`rows` of each) with their users,
 * categories, followers and owners.
 * @param {{ accountId: number, rows: number, now: number }} options
 * @returns {Seeded}
 */
export function seed({ accountId, rows, now }) {
  const random = prng(20261122);
  /** @template T @param {readonly T[]} list @returns {T} */
  const pick = (list) => /** @type {T} */ (list[Math.floor(random() * list.length)]);
  const between = (/** @type {number} */ low, /** @type {number} */ high) =>
    low + Math.floor(random() * (high - low + 1));
  const chance = (/** @type {number} */ p) => random() < p;
  /** @template T @param {T} value @returns {T | null} */
  const often = (value, /** @type {number} */ p) => (chance(p) ? value : null);
  const anyRow = () => between(1, rows);
  const anyUser = () => between(1, USERS);
  const account_id = accountId;

  // Two years of history, ids in creation order as the API would have written them.
  const start = now - 730 * DAY_MS;
  const step = (730 * DAY_MS) / rows;
  /** @param {number} i */
  const times = (i) => {
    const created_at = Math.floor(start + (i - 1) * step + random() * step);
    return { created_at, updated_at: Math.min(now, created_at + between(0, 30) * DAY_MS) };
  };
  /** @param {string} name */
  const named = (name) => ({ name, name_norm: normalizeText(name) });
  /** A searchable name (users, contacts, companies): with its fold. @param {string} name */
  const searchable = (name) => ({ ...named(name), name_fold: foldText(name) });
  /** @param {number} length @param {(i: number) => Row} row ids 1..length */
  const make = (length, row) => Array.from({ length }, (_, k) => row(k + 1));

  const users = make(USERS, (i) => {
    const first = FIRST_NAMES[(i - 1) % FIRST_NAMES.length] ?? '';
    const last = SURNAMES[((i - 1) * 7) % SURNAMES.length] ?? '';
    const email = `${ascii(first)}.${ascii(last)}@exemplo.com.br`;
    const created_at = start - (USERS - i) * DAY_MS;
    return {
      id: i,
      account_id,
      ...searchable(`${first} ${last}`),
      email,
      email_norm: normalizeText(email),
      created_at,
      updated_at: created_at,
    };
  });

  const task_categories = make(CATEGORIES.length, (i) => ({
    id: i,
    account_id,
    ...named(CATEGORIES[i - 1] ?? ''),
    created_at: start,
  }));

  const companies = make(rows, (i) => {
    const shape = random();
    const segment = often(pick(SEGMENTS), 0.9);
    return {
      id: i,
      account_id,
      ...searchable(
        shape < 0.4
          ? `${pick(SURNAMES)} ${pick(ACTIVITIES)} ${pick(COMPANY_SUFFIXES)}`
          : shape < 0.7
            ? `${pick(ACTIVITIES)} ${pick(SURNAMES)} & ${pick(SURNAMES)} ${pick(COMPANY_SUFFIXES)}`
            : `${pick(FANTASY)} ${pick(ACTIVITIES)}`,
      ),
      cnpj: cnpjFor(i),
      owner_id: often(anyUser(), 0.9),
      segment,
      segment_norm: segment && normalizeText(segment),
      segment_fold: segment && foldText(segment),
      observations: often(pick(OBSERVATIONS), 0.3),
      ...times(i),
    };
  });

  // custom_fields is left to its column default, '{}'.
  const contacts = make(rows, (i) => {
    const first = pick(FIRST_NAMES);
    const last = pick(SURNAMES);
    const email = often(`${ascii(first)}.${ascii(last)}${i}@${pick(DOMAINS)}`, 0.9);
    const subscriber = chance(0.8) ? `9${between(10_000_000, 99_999_999)}` : between(20_000_000, 59_999_999);
    return {
      id: i,
      account_id,
      ...searchable(chance(0.5) ? `${first} ${pick(SURNAMES)} ${last}` : `${first} ${last}`),
      email,
      email_norm: email && normalizeText(email),
      phone: often(`+55${pick(AREA_CODES)}${subscriber}`, 0.9),
      company_id: often(anyRow(), 0.85),
      owner_id: often(anyUser(), 0.9),
      ...times(i),
    };
  });

  const deals = make(rows, (i) => {
    const roll = random();
    return {
      id: i,
      account_id,
      ...named(`${pick(DEAL_KINDS)} ${pick(PRODUCTS)}`),
      company_id: often(anyRow(), 0.9),
      contact_id: often(anyRow(), 0.8),
      owner_id: often(anyUser(), 0.95),
      status: roll < 0.6 ? 'open' : roll < 0.85 ? 'won' : 'lost',
      value: often(between(100_000, 50_000_000) / 100, 0.9),
      ...times(i),
    };
  });

  const dealTasks = new Map();
  const tasks = make(rows, (i) => {
    const { created_at, updated_at } = times(i);
    const due_date = often(created_at + between(-2, 45) * DAY_MS + between(8, 18) * 3_600_000, 0.8);
    // Past tasks are mostly done, future ones mostly open.
    const done = due_date === null ? chance(0.3) : due_date < now ? chance(0.85) : chance(0.1);
    const deal_id = anyRow();
    dealTasks.set(deal_id, (dealTasks.get(deal_id) ?? 0) + 1);
    return {
      id: i,
      account_id,
      name: pick(TASK_NAMES),
      deal_id,
      category_id: between(1, CATEGORIES.length),
      description: often(pick(TASK_DESCRIPTIONS), 0.5),
      due_date,
      completed_at: done ? Math.min(now, (due_date ?? created_at) + between(0, 3) * DAY_MS) : null,
      created_at,
      updated_at,
    };
  });

  // Link rows follow from their parents' ids, so SQLite makes them itself: 0 to 3 followers per
  // company (i % 4), 1 to 3 owners per task (1 + i % 3), distinct users within each set.
  const links = `
INSERT INTO company_followers (account_id, company_id, user_id)
SELECT c.account_id, c.id, (c.id * 7 + k.n) % ${USERS} + 1
FROM companies c JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) k ON k.n < c.id % 4
WHERE c.account_id = ${accountId};
INSERT INTO task_owners (account_id, task_id, user_id)
SELECT t.account_id, t.id, (t.id * 11 + k.n * 5) % ${USERS} + 1
FROM tasks t JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2) k ON k.n <= t.id % 3
WHERE t.account_id = ${accountId};`;
  let followers = 0;
  let owners = 0;
  for (let i = 1; i <= rows; i++) {
    followers += i % 4;
    owners += 1 + (i % 3);
  }

  const events = seedEvents({ accountId, rows, now });
  const middle = companies[Math.floor(rows / 2)] ?? companies[0];
  const [busiestDeal] = [...dealTasks].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [1, 0]);
  return {
    sql: [
      // Parents before children: every reference is a composite foreign key D1 checks.
      inserts('users', users),
      inserts('task_categories', task_categories),
      inserts('companies', companies),
      inserts('contacts', contacts),
      inserts('deals', deals),
      inserts('tasks', tasks),
      links,
      events.sql,
    ].join('\n'),
    counts: {
      users: USERS,
      task_categories: CATEGORIES.length,
      companies: rows,
      contacts: rows,
      deals: rows,
      tasks: rows,
      company_followers: followers,
      task_owners: owners,
      inbound_events: events.count,
    },
    probe: {
      rows,
      companyName: String(middle?.name),
      companyCnpj: String(middle?.cnpj),
      dealId: busiestDeal,
      createdFrom: start + 365 * DAY_MS,
      createdTo: start + 395 * DAY_MS,
      now,
      ...events.probe,
    },
  };
}
