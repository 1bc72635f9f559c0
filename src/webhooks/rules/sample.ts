import { checkDigit } from '../../core/cnpj';
import { normalizePhone } from '../../core/phone';
import type { FieldMapping } from './config';
import { wordsOf } from './target-guess';

/**
 * The values a sample event fills its phone, email and CNPJ fields with. They are drawn afresh
 * for every send, valid but random, so that in production the sample creates its own records
 * instead of matching (and renaming) real ones; `pickSample` takes the first candidate the
 * account does not hold.
 */
export type SampleValues = { phone: string; email: string; cnpj: string };

/** Candidates for each value, best first: the caller checks the account and keeps a free one. */
export type SampleCandidates = { phones: string[]; emails: string[]; cnpjs: string[] };

const CANDIDATES = 3;

const digits = (count: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(count)), (byte) => String(byte % 10)).join('');

const hex = (bytes: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');

/** A valid, masked CNPJ with a random base (branch 0001, so it reads like a head office). */
function randomCnpj(): string {
  const base = `${digits(8)}0001`;
  const first = checkDigit(base);
  const full = `${base}${first}${checkDigit(base + first)}`;
  return `${full.slice(0, 2)}.${full.slice(2, 5)}.${full.slice(5, 8)}/${full.slice(8, 12)}-${full.slice(12)}`;
}

/** Random São Paulo mobile numbers, `example.com` addresses (RFC 2606) and CNPJs. */
export function sampleCandidates(): SampleCandidates {
  const list = (make: () => string) => Array.from({ length: CANDIDATES }, make);
  return {
    phones: list(() => {
      const n = digits(8);
      return `+55 11 9${n.slice(0, 4)}-${n.slice(4)}`;
    }),
    emails: list(() => `exemplo-${hex(8)}@example.com`),
    cnpjs: list(randomCnpj),
  };
}

/** The forms the account's rows store a candidate in: E.164 phones, lower-case emails, bare CNPJs. */
export const storedForms = (candidates: SampleCandidates) => ({
  phones: candidates.phones.map((phone) => normalizePhone(phone) ?? phone),
  emails: candidates.emails.map((email) => email.toLowerCase()),
  cnpjs: candidates.cnpjs.map((cnpj) => cnpj.replace(/[./-]/g, '')),
});

/** The first candidate of each kind whose stored form is not `taken`. */
export function pickSample(candidates: SampleCandidates, taken: ReadonlySet<string>): SampleValues {
  const stored = storedForms(candidates);
  const free = (given: string[], forms: string[]) =>
    given.find((_, i) => !taken.has(forms[i] ?? '')) ?? given[0] ?? '';
  return {
    phone: free(candidates.phones, stored.phones),
    email: free(candidates.emails, stored.emails),
    cnpj: free(candidates.cnpjs, stored.cnpjs),
  };
}

type Node = Record<string, unknown>;

// The types whose sample value is drawn to match no record: an example from a real sender's test
// event (someone's phone) could match, and so rename, a record of the account.
const DRAWN = new Set(['phone', 'email', 'cnpj']);

// A dealership's lead, as a reader of the sample expects one: a person, a car, a shop. Names are
// no match key (phone, email and CNPJ are, and are drawn), so these never touch real records.
const NAME = 'Ana Souza';
const TEXT_BY_TARGET: Readonly<Record<string, string>> = {
  'contact.name': NAME,
  'company.name': 'Auto Center Paulista',
  'deal.name': `Lead - ${NAME}`,
};
const TEXT_BY_KEY: [RegExp, string][] = [
  [/^(veiculo|modelo|carro|vehicle|model|car)(_\w+)?$/, 'Onix LT 1.0'],
  [/^(empresa|razao_social|company|nome_empresa|nome_fantasia|loja)$/, 'Auto Center Paulista'],
  [/^(nome|name|cliente|nome_completo|full_name|contato|lead|vendedor)$/, NAME],
  [/^(cidade|city|municipio)$/, 'São Paulo'],
  [/^(estado|uf|state)$/, 'SP'],
  [/^(cep|zip|postal_code)$/, '01310-100'],
  [/^(placa|plate)$/, 'BRA2E19'],
  [/^(cor|color|colour)$/, 'Prata'],
  [/^(origem|source|canal|channel|utm_source|midia)$/, 'Site'],
  [
    /^(mensagem|message|obs|observacao|observacoes|comentario|comment|interesse)$/,
    'Quero agendar um test drive.',
  ],
];
const NUMBER_BY_KEY: [RegExp, number][] = [
  [/^(valor|value|preco|price|amount|orcamento)$/, 89900],
  [/^(ano|year|ano_modelo)$/, 2024],
  [/^(km|quilometragem|mileage)$/, 35000],
];

const pick = <T>(table: [RegExp, T][], key: string): T | undefined =>
  table.find(([words]) => words.test(wordsOf(key)))?.[1];

/** `today` written in a field's format (`DD/MM/YYYY HH:mm`), in UTC as ingest reads it. */
export function formatDate(format: string, today: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const parts: Readonly<Record<string, string>> = {
    YYYY: String(today.getUTCFullYear()).padStart(4, '0'),
    MM: two(today.getUTCMonth() + 1),
    DD: two(today.getUTCDate()),
    HH: two(today.getUTCHours()),
    mm: two(today.getUTCMinutes()),
    ss: two(today.getUTCSeconds()),
  };
  return format.replace(/YYYY|MM|DD|HH|mm|ss/g, (token) => parts[token] ?? token);
}

type SampleField = Pick<FieldMapping, 'key' | 'type' | 'target' | 'formats'>;

/** A plausible value of a field's type for a dealership's lead, by its target and key. */
function plausible(field: SampleField, values: SampleValues, today: Date): unknown {
  if (field.target === 'company.cnpj') return values.cnpj;
  switch (field.type) {
    case 'phone':
      return values.phone;
    case 'email':
      return values.email;
    case 'cnpj':
      return values.cnpj;
    case 'date': {
      const format = field.formats?.[0];
      return format ? formatDate(format, today) : today.toISOString().slice(0, 10);
    }
    case 'number':
      return field.target === 'deal.value' ? 89900 : (pick(NUMBER_BY_KEY, field.key) ?? 1000);
    case 'boolean':
      return true;
    default:
      return (
        (field.target && Object.hasOwn(TEXT_BY_TARGET, field.target)
          ? TEXT_BY_TARGET[field.target]
          : undefined) ??
        pick(TEXT_BY_KEY, field.key) ??
        'Exemplo'
      );
  }
}

/**
 * A sample body for the declared fields: each key at its dot path, with a plausible value of its
 * type (a date in the field's first format), or the `given` value of its key (a text, number or
 * boolean from a test event) for a type that is not drawn. Every object is built without a
 * prototype, so a key such as `__proto__.x` becomes an own property of the body and can never
 * reach `Object.prototype` of the isolate.
 */
export function samplePayload(
  fields: readonly SampleField[],
  values: SampleValues,
  today = new Date(),
  given: ReadonlyMap<string, unknown> = new Map(),
): Node {
  const body = Object.create(null) as Node;
  for (const field of fields) {
    const parts = field.key.split('.');
    const last = parts.pop() ?? field.key;
    let node = body;
    for (const part of parts) {
      const next = Object.hasOwn(node, part) ? node[part] : undefined;
      const child =
        next !== null && typeof next === 'object' ? (next as Node) : (Object.create(null) as Node);
      node[part] = child;
      node = child;
    }
    const example = given.get(field.key);
    const usable =
      ['string', 'number', 'boolean'].includes(typeof example) &&
      !DRAWN.has(field.type) &&
      field.target !== 'company.cnpj';
    node[last] = usable ? example : plausible(field, values, today);
  }
  return body;
}
