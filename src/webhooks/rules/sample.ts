import { checkDigit } from '../../core/cnpj';
import { normalizePhone } from '../../core/phone';
import type { FieldMapping } from './config';

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

/**
 * A sample body for the declared fields: each key at its dot path, with a value of its type, or
 * the `given` value of its key (a text, number or boolean from a test event) for a type that is
 * not drawn. Every object is built without a prototype, so a key such as `__proto__.x` becomes an
 * own property of the body and can never reach `Object.prototype` of the isolate.
 */
export function samplePayload(
  fields: readonly Pick<FieldMapping, 'key' | 'type' | 'target'>[],
  values: SampleValues,
  today = new Date(),
  given: ReadonlyMap<string, unknown> = new Map(),
): Node {
  const examples: Node = Object.assign(Object.create(null) as Node, {
    string: 'Exemplo',
    number: 1000,
    boolean: true,
    date: today.toISOString().slice(0, 10),
    phone: values.phone,
    email: values.email,
    cnpj: values.cnpj,
  });
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
    node[last] = usable
      ? example
      : field.target === 'company.cnpj'
        ? values.cnpj
        : Object.hasOwn(examples, field.type)
          ? examples[field.type]
          : 'Exemplo';
  }
  return body;
}
