import type { FieldError } from '../core/errors';
import { Args } from '../core/said';
import { type ImportResource, importFields } from '../imports/fields';
import type { Lang } from './i18n';
import { fieldWord } from './import-words';
import { wordsFor } from './said-words';

// Why an import's row would fail, in the page's language, from its errors' codes and params (the
// dry run's `errors`): each led by the column of the person's file it is about. The codes the
// import alone says (a relation by natural key not found, a unique key taken, a broken CSV row)
// are worded here; the others by the panel's table of the API's codes (said-words.ts). A code
// worded in neither keeps its English message.

type Say = (a: Args, record: string) => string;
type Words = Readonly<Record<Lang, Say>>;

/** Each record kind in pt-BR with its article's gender, and in English. */
const RECORDS: Readonly<Record<string, { pt: string; f: boolean; en: string }>> = Object.assign(
  Object.create(null),
  {
    company: { pt: 'empresa', f: true, en: 'company' },
    contact: { pt: 'contato', f: false, en: 'contact' },
    deal: { pt: 'negócio', f: false, en: 'deal' },
    task: { pt: 'tarefa', f: true, en: 'task' },
    user: { pt: 'usuário', f: false, en: 'user' },
  },
);

const KEYS: Readonly<Record<string, Readonly<Record<Lang, string>>>> = Object.assign(Object.create(null), {
  cnpj: { 'pt-BR': 'este CNPJ', en: 'this CNPJ' },
  email: { 'pt-BR': 'este e-mail', en: 'this email' },
  phone: { 'pt-BR': 'este telefone', en: 'this phone' },
  external_id: { 'pt-BR': 'este ID externo', en: 'this external ID' },
});

const recordOf = (kind: string) => RECORDS[kind] ?? { pt: kind, f: false, en: kind };
const keyOf = (lang: Lang, key: string) => KEYS[key]?.[lang] ?? key;

/** `taken`: who already holds the value of a key that is unique in the account. */
const taken: Words = {
  'pt-BR': (a, kind) => {
    const r = recordOf(kind);
    const key = keyOf('pt-BR', a.text('field'));
    if (a.text('holder') === 'trash')
      return `${r.f ? 'Uma' : 'Um'} ${r.pt} na lixeira tem ${key}: restaure-${r.f ? 'a' : 'o'} antes.`;
    if (a.text('holder') === 'batch') return `Outra linha deste arquivo tem ${key} também.`;
    return `${r.f ? 'Outra' : 'Outro'} ${r.pt} desta conta já tem ${key}.`;
  },
  en: (a, kind) => {
    const key = keyOf('en', a.text('field'));
    if (a.text('holder') === 'trash')
      return `A ${recordOf(kind).en} in the trash has ${key}: restore it first.`;
    if (a.text('holder') === 'batch') return `Another row of this file has ${key} too.`;
    return `Another ${recordOf(kind).en} of this account has ${key}.`;
  },
};

/** The codes worded for an import; `undefined`: the general table's words (or the English). */
const importCodes: Readonly<Record<string, Words>> = Object.assign(Object.create(null), {
  required: { 'pt-BR': () => 'Este campo é obrigatório.', en: () => 'This field is required.' },
  not_found: {
    'pt-BR': (a) => {
      if (!a.has('key')) return 'Nenhum registro desta conta tem este id.';
      const r = recordOf(a.text('record'));
      return `${r.f ? 'Nenhuma' : 'Nenhum'} ${r.pt} desta conta tem ${keyOf('pt-BR', a.text('key'))}.`;
    },
    en: (a) =>
      a.has('key')
        ? `No ${recordOf(a.text('record')).en} of this account has ${keyOf('en', a.text('key'))}.`
        : 'No record of this account has this id.',
  },
  taken,
  conflict: {
    'pt-BR': () => 'Outra linha deste arquivo grava este mesmo registro.',
    en: () => 'Another row of this file writes this same record.',
  },
  row_too_long: {
    'pt-BR': (a) => `A linha passa de ${a.text('max_kib')} KiB: nenhuma célula dela foi lida.`,
    en: (a) => `The row is over ${a.text('max_kib')} KiB: none of its cells was read.`,
  },
  unclosed_quote: {
    'pt-BR': () => 'Uma célula abre aspas e não as fecha até o fim do arquivo.',
    en: () => 'A cell opens a quote that is not closed before the end of the file.',
  },
} satisfies Record<string, Words>);

/**
 * What a cell takes where the API's words speak of JSON or of `/v1`'s forms: a date the import reads
 * as DD/MM/YYYY too, a number as 1.234,56, a yes or no as sim or não (src/imports/fields.ts).
 */
const CELLS: Readonly<Record<string, Readonly<Record<Lang, string>>>> = Object.assign(Object.create(null), {
  date_time: {
    'pt-BR': 'Deve ser uma data como 31/12/2026 (DD/MM/AAAA, com HH:MM se quiser) ou ISO 8601 com fuso.',
    en: 'Expected a date such as 31/12/2026 (DD/MM/YYYY, with HH:MM if you like) or ISO 8601 with an offset.',
  },
  number: {
    'pt-BR': 'Deve ser um número, como 1.234,56 ou 1234.56.',
    en: 'Expected a number, such as 1.234,56 or 1234.56.',
  },
  boolean: { 'pt-BR': 'Deve ser sim ou não.', en: 'Expected yes or no (sim or não).' },
});

/** The import field an error's path is about: `company.cnpj` → `company_cnpj`, `deal_id` → the deal's key. */
function fieldOf(resource: ImportResource, path: string): string {
  const fields = importFields[resource];
  const joined = path.replace('.', '_');
  if (Object.hasOwn(fields, joined)) return joined;
  const relation = `${path.replace(/_id$/, '')}_`;
  const byKey = Object.keys(fields).find((f) => f.startsWith(relation) && fields[f]?.kind.startsWith('ref:'));
  return byKey ?? path.split('.')[0] ?? path;
}

/** The column of the file an error is about: its header as the file has it, or the field in words. */
function columnOf(lang: Lang, resource: ImportResource, columns: readonly Column[], path: string) {
  if (!path) return '';
  const field = fieldOf(resource, path);
  return columns.find((c) => c.field === field)?.header || fieldWord(lang, field);
}

type Column = { header: string; field: string | null };

/** One error's words: the import's own, then the general table's, then its English message. */
function errorWords(lang: Lang, kind: string, e: FieldError): string {
  const a = new Args(e.params ?? {});
  const cell = (e.code === 'invalid' || e.code === 'invalid_type') && CELLS[a.text('expected')];
  if (cell) return cell[lang];
  const own = importCodes[e.code];
  if (own) return own[lang](a, kind);
  return (e.params !== undefined && wordsFor('codes', e.code, a, { lang })) || e.message;
}

/** The record kind of an import's rows: `companies` → `company`. */
const KINDS: Readonly<Record<ImportResource, string>> = {
  companies: 'company',
  contacts: 'contact',
  deals: 'deal',
  tasks: 'task',
};

/** A failed row's reasons in `lang`, each led by its column ("CNPJ: …"); its English without errors. */
export function rowReason(
  lang: Lang,
  preview: { resource: ImportResource; columns: readonly Column[] },
  row: { reason?: string | undefined; errors?: readonly FieldError[] | undefined },
): string {
  if (!row.errors?.length) return row.reason ?? '';
  return row.errors
    .map((e) => {
      const words = errorWords(lang, KINDS[preview.resource], e);
      const column = columnOf(lang, preview.resource, preview.columns, e.path);
      return column ? `${column}: ${words}` : words;
    })
    .join('; ');
}
