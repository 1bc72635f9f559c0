import { canonicalCnpj } from '../../core/cnpj';
import { MAX_DEPTH } from '../../core/json-paths';
import { isReservedSegment } from '../../core/outside-keys';
import type { Target } from './config';
import { type FieldLocale, type FieldType, guessBrazilian, guessDateFormat, guessType } from './fields';

// What a field of an example event most likely fills in the CRM, from its key and its value: the
// mapping a configurer confirms or changes instead of typing `contact.custom_fields.veiculo`.

/** A suggested mapping for one key: where it goes, its type and, for a date or number, how it is written. */
export type TargetGuess = {
  key: string;
  type: FieldType;
  /** Undefined: declared only (used in names and conditions), filling no record field. */
  target: Target | undefined;
  formats?: string;
  locale?: FieldLocale;
};

/** The words of a key, as a sender may write them: `Razão Social`, `razao-social`, `lead.e-mail`. */
export const wordsOf = (key: string) =>
  (key.split('.').at(-1) ?? '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

// Each fixed target by the words a sender names it with; the first that matches wins.
const BY_KEY: [RegExp, Target, FieldType][] = [
  [/^(e_?mail|mail|correio)$/, 'contact.email', 'email'],
  [/^(telefone|celular|whatsapp|whats|wpp|fone|phone|tel|mobile)(_\w+)?$/, 'contact.phone', 'phone'],
  [/^cnpj$/, 'company.cnpj', 'cnpj'],
  [/^(empresa|razao_social|company|nome_empresa|nome_fantasia)$/, 'company.name', 'string'],
  [/^(nome|name|cliente|nome_completo|full_name|contato|lead)$/, 'contact.name', 'string'],
  [/^(valor|value|preco|price|amount)$/, 'deal.value', 'number'],
];

/** Whether a key names what the lead wants to buy (`veiculo`, `modelo`, `carro`, `produto`): the deal's. */
export const productKey = (key: string) =>
  /^(veiculo|modelo|carro|produto|interesse|vehicle|model|car|product)(_\w+)?$/.test(wordsOf(key));

/** A bare 14-character CNPJ with valid check digits: a company, even unmasked. */
const isCnpj = (value: unknown) =>
  typeof value === 'string' && /^[\d./\s-]{14,18}$/.test(value.trim()) && canonicalCnpj(value) !== undefined;

/** The fixed target a value alone points at, when its key names none. */
function byValue(value: unknown): [Target, FieldType] | undefined {
  if (isCnpj(value)) return ['company.cnpj', 'cnpj'];
  const type = guessType(value);
  if (type === 'email') return ['contact.email', 'email'];
  if (type === 'phone') return ['contact.phone', 'phone'];
  return undefined;
}

/**
 * Whether a webhook may declare the key: the configuration's rule for a key (a dot path of at most
 * 200 characters, no deeper than a body may nest; webhooks/config/schema.ts), so the guided mapping
 * never offers a target for a key a save would refuse.
 */
export const declarableKey = (key: string) =>
  key.length <= 200 && /^[^.\s]+(\.[^.\s]+)*$/.test(key) && key.split('.').length <= MAX_DEPTH;

/** The custom field name a key becomes (`Data da compra` → `data_da_compra`), or undefined. */
export function customName(key: string): string | undefined {
  // A key a sender cannot declare (`__proto__`, `constructor`) names no custom field either.
  if (isReservedSegment(key.split('.').at(-1) ?? '')) return undefined;
  const name = wordsOf(key).slice(0, 100);
  return name && !isReservedSegment(name) ? name : undefined;
}

/** How a value is read when it is no fixed target's: its type, date format or Brazilian locale. */
export function readAs(value: unknown): Pick<TargetGuess, 'type' | 'formats' | 'locale'> {
  const formats = guessDateFormat(value);
  if (formats) return { type: 'date', formats };
  const brazilian = guessBrazilian(value);
  if (brazilian) return brazilian;
  const type = guessType(value);
  return { type: type === 'cnpj' || type === 'phone' || type === 'email' ? 'string' : type };
}

function guessOne(key: string, value: unknown, taken: Set<string>): TargetGuess {
  const words = wordsOf(key);
  const found = BY_KEY.find(([pattern]) => pattern.test(words));
  const named: [Target, FieldType] | undefined = found && [found[1], found[2]];
  const valued = byValue(value);
  // A value that is a phone, an email or a CNPJ says more than a key that names only text
  // (`contato: ana@example.com`); otherwise the key first, then the value, the first target free.
  const order = named?.[1] === 'string' && valued ? [valued, named] : [named, valued];
  const fixed = order.find((c): c is [Target, FieldType] => c !== undefined && !taken.has(c[0]));
  if (fixed) {
    taken.add(fixed[0]);
    const locale = fixed[1] === 'number' ? guessBrazilian(value)?.locale : undefined;
    return { key, target: fixed[0], type: fixed[1], ...(locale ? { locale } : {}) };
  }
  const name = customName(key);
  // What the lead wants (a car, a product) belongs to the deal; anything else, to the contact.
  const record = productKey(key) ? 'deal' : 'contact';
  const target: Target | undefined = name ? `${record}.custom_fields.${name}` : undefined;
  const free = target && !taken.has(target) ? target : undefined;
  if (free) taken.add(free);
  return { key, target: free, ...readAs(value) };
}

/**
 * A suggested mapping for each field of an example event, in its order: a key that names a record
 * field (`nome`, `telefone`, `e-mail`, `cnpj`, `razao_social`, `valor`), else a value that is one
 * (a phone, an email, a valid CNPJ), fills it; a product-like key (`veiculo`, `modelo`), a deal's
 * custom field of its name; any other field, a contact's custom field of its name, typed by its value (`15/03/2025` a date read as `DD/MM/YYYY`). Each target goes to the
 * first field that claims it (a configuration fills a target once), the next ones to custom fields;
 * `filled` are the targets the configuration fills already.
 */
export function suggestTargets(
  fields: readonly (readonly [string, unknown])[],
  filled: Iterable<string> = [],
): TargetGuess[] {
  const taken = new Set<string>(filled);
  return fields.map(([key, value]) =>
    declarableKey(key) ? guessOne(key, value, taken) : { key, target: undefined, ...readAs(value) },
  );
}
