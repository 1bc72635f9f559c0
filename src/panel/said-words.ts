import { Args, expectationCodes, expectedWords, type Params, reasonCodes, type SaidCode } from '../core/said';
import { fieldTypes } from '../webhooks/rules/fields';
import { shownFormat } from './format-words';
import type { Lang } from './i18n';
import { actionLabel, kindLabel, matchKeyLabel, opLabel, targetLabel, typeLabel } from './labels';

// The words of each code the API says (src/core/said.ts), in pt-BR and English, made from its
// params: people by their names, actions as the configurer sees them ("Ação 2 · Criar negócio").
// Each param is plain text from outside (a sender's key, a configured target): read through Args
// (own properties only) and escaped by the view, never turned into markup here.

/**
 * What a message is worded with: the page's language, the account's users it may name, and which
 * of those are in the trash (a refused owner is one, most often).
 */
export type Said = {
  lang: Lang;
  users?: ReadonlyMap<number, string> | undefined;
  trashed?: ReadonlySet<number> | undefined;
};
type Say = (a: Args, c: Said) => string;
type Words = { readonly 'pt-BR': Say; readonly en: Say };

const q = (s: string) => `“${s}”`;
const pt = (c: Said) => c.lang !== 'en';

const target = (c: Said, t: string) => {
  const label = targetLabel(c, t);
  return label === t ? q(t) : `${label} (${t})`;
};
const types = (c: Said, list: string[]) => list.map((t) => typeLabel(c, t)).join(pt(c) ? ' ou ' : ' or ');
const RECORDS: Readonly<Record<string, string>> = {
  contact: 'contato',
  deal: 'negócio',
  company: 'empresa',
  task: 'tarefa',
  user: 'usuário',
};
const record = (c: Said, r: string) => (pt(c) ? (Object.hasOwn(RECORDS, r) ? RECORDS[r] : r) : r) ?? r;

/** An action as the flow editor shows it: its position from 1 and its label. */
export const actionName = (c: Said, a: Args) => {
  const label = actionLabel(c, a.text('action'));
  const n = a.num('index');
  return Number.isInteger(n) ? `${pt(c) ? 'Ação' : 'Action'} ${n + 1} · ${label}` : q(label);
};

/** A user by name when the page knows it; by id only when no name is left to say. */
const user = (c: Said, id: string) => {
  const name = c.users?.get(Number(id));
  if (name !== undefined) return name;
  return pt(c) ? `o usuário #${id}` : `user #${id}`;
};
const inTrash = (c: Said, id: string) =>
  c.users?.has(Number(id)) === true && c.trashed?.has(Number(id)) === true;

/** Users who are gone, in one clause each way: those in the trash, then those not in the account. */
function goneUsers(c: Said, ids: string[]): string {
  const trashed = ids.filter((id) => inTrash(c, id)).map((id) => user(c, id));
  const gone = ids.filter((id) => !inTrash(c, id)).map((id) => user(c, id));
  const and = (list: string[]) =>
    list.length < 2
      ? (list[0] ?? '')
      : `${list.slice(0, -1).join(', ')} ${pt(c) ? 'e' : 'and'} ${list.at(-1)}`;
  const one = (list: string[]) => list.length === 1;
  const clauses = pt(c)
    ? [
        trashed.length ? `${and(trashed)} ${one(trashed) ? 'está' : 'estão'} na lixeira` : '',
        gone.length ? `${and(gone)} ${one(gone) ? 'não está mais' : 'não estão mais'} na conta` : '',
      ]
    : [
        trashed.length ? `${and(trashed)} ${one(trashed) ? 'is' : 'are'} in the trash` : '',
        gone.length ? `${and(gone)} ${one(gone) ? 'is' : 'are'} no longer in the account` : '',
      ];
  return clauses.filter(Boolean).join('; ');
}

/** The API's own English words of an expectation (src/core/said.ts): written there only. */
const api =
  (code: string): Say =>
  (a) =>
    expectedWords(code, a.params as Params);

/** What a value was expected to be, by its expectation code (src/core/said.ts). */
const expectations: Readonly<Record<string, Words>> = {
  finite_number: { 'pt-BR': () => 'um número finito', en: api('finite_number') },
  safe_integer: {
    'pt-BR': (a) =>
      `um número inteiro de no máximo ${a.text('max')} (2^53 - 1): um maior seria guardado arredondado; ligue-o a um campo de texto`,
    en: (a) => `a whole number of at most ${a.text('max')} (2^53 - 1); map a larger one to a text field`,
  },
  brazilian_number: {
    'pt-BR': () =>
      'um número no formato brasileiro: 89.900,00, R$ 120.000, 1.234 (mil duzentos e trinta e quatro) ou 1,5',
    en: api('brazilian_number'),
  },
  number_text: {
    'pt-BR': () => 'um número, ou dígitos com no máximo um . ou , antes dos decimais',
    en: () => 'a number',
  },
  no_thousands: {
    'pt-BR': () => 'um número sem separador de milhar: 1.500 e 1,500 são ambíguos',
    en: () => 'no thousands separator',
  },
  brazilian_boolean: {
    'pt-BR': () => 'sim ou não: sim, não, s, n, true, false, 1 ou 0',
    en: () => 'yes or no: sim, não, s, n, true, false, 1 or 0',
  },
  boolean: {
    'pt-BR': () => 'sim ou não: true, false, "true", "false", 1, 0, "1" ou "0"',
    en: () => 'yes or no (true or false)',
  },
  big_integer_text: {
    'pt-BR': () => 'texto para um número inteiro acima de 2^53',
    en: () => 'text for a number over 2^53',
  },
  scalar: { 'pt-BR': () => 'texto, número ou sim/não', en: () => 'text, a number or yes/no' },
  max_characters: {
    'pt-BR': (a) => `um texto de no máximo ${a.text('max')} caracteres`,
    en: api('max_characters'),
  },
  unicode: { 'pt-BR': () => 'texto Unicode válido', en: api('unicode') },
  phone_text: { 'pt-BR': () => 'um telefone como texto ou número inteiro', en: () => 'a phone number' },
  phone: { 'pt-BR': () => 'um telefone brasileiro ou internacional (+DDI)', en: () => 'a phone number' },
  date_text: { 'pt-BR': () => 'uma data como texto', en: () => 'a date as text' },
  date: {
    'pt-BR': (a, c) =>
      `uma data real como AAAA-MM-DD, data e hora RFC 3339${a
        .list('formats')
        .map((f) => `, ${shownFormat(c.lang, f)}`)
        .join('')}`,
    en: api('date'),
  },
  date_time: {
    'pt-BR': () => 'uma data e hora ISO 8601 com fuso, como 2026-12-01T10:00:00-03:00',
    en: api('date_time'),
  },
  email_text: { 'pt-BR': () => 'um e-mail como texto', en: () => 'an email address as text' },
  email: { 'pt-BR': () => 'um e-mail válido', en: api('email') },
  cnpj_text: { 'pt-BR': () => 'um CNPJ como texto', en: () => 'a CNPJ as text' },
  cnpj: {
    'pt-BR': () =>
      'um CNPJ válido: 14 caracteres, puros ou como XX.XXX.XXX/XXXX-XX, com dígitos verificadores certos',
    en: api('cnpj'),
  },
};

/** The JSON types zod names in its own `invalid_type` (src/contracts/field-errors.ts). */
const JSON_KINDS: Readonly<Record<string, Readonly<Record<Lang, string>>>> = {
  string: { 'pt-BR': 'texto (uma string JSON)', en: 'text (a JSON string)' },
  number: {
    'pt-BR': 'um número (um número JSON como 89900.5, sem aspas)',
    en: 'a number (a JSON number such as 89900.5, not in quotes)',
  },
  int: {
    'pt-BR': 'um número inteiro (um número JSON como 42, sem aspas)',
    en: 'a whole number (a JSON number such as 42, not in quotes)',
  },
  boolean: { 'pt-BR': 'true ou false (sem aspas)', en: 'true or false (not in quotes)' },
  object: { 'pt-BR': 'um objeto JSON', en: 'a JSON object' },
  array: { 'pt-BR': 'uma lista (um array JSON)', en: 'a list (a JSON array)' },
};

const expected = (a: Args, c: Said) => {
  const code = a.text('expected');
  if (Object.hasOwn(expectations, code)) return expectations[code]?.[c.lang](a, c) ?? code;
  if (Object.hasOwn(JSON_KINDS, code)) return JSON_KINDS[code]?.[c.lang] ?? code;
  return kindLabel(c, code);
};

/** A number sent the Brazilian way where JSON's was expected: how to send it. */
const brazilianHint = (a: Args, c: Said) => {
  if (!a.has('plain')) return '';
  return pt(c)
    ? ` ${q(a.text('sent'))} está no formato brasileiro: envie ${a.text('plain')}, com ponto antes dos decimais e sem separador de milhar.`
    : ` ${q(a.text('sent'))} is written the Brazilian way: send ${a.text('plain')}, with a point for the decimals and no thousands separator.`;
};

const UNITS: Readonly<Record<string, Readonly<Record<Lang, [string, string]>>>> = {
  string: { 'pt-BR': ['caractere', 'caracteres'], en: ['character', 'characters'] },
  array: { 'pt-BR': ['item', 'itens'], en: ['item', 'items'] },
  set: { 'pt-BR': ['item', 'itens'], en: ['item', 'items'] },
};

/** A size limit in words, as field-errors.ts says it in English: "no máximo 100 caracteres". */
function limit(a: Args, c: Said, big: boolean): string {
  const n = a.num(big ? 'max' : 'min');
  const origin = a.text('origin');
  const unit = Object.hasOwn(UNITS, origin) ? UNITS[origin]?.[c.lang] : undefined;
  const [most, least, less, more, or] = pt(c)
    ? ['no máximo', 'no mínimo', 'menor', 'maior', 'ou']
    : ['at most', 'at least', 'less', 'more', 'or'];
  if (unit) return `${big ? most : least} ${n} ${n === 1 ? unit[0] : unit[1]}`;
  if (a.own('inclusive') === false)
    return pt(c) ? `${big ? less : more} que ${n}` : `${big ? less : more} than ${n}`;
  return pt(c) ? `${n} ${or} ${big ? 'menos' : 'mais'}` : `${n} ${or} ${big ? less : more}`;
}

/** Why an action did not run, by the reason's code (src/core/said.ts). */
const reasons: Readonly<Record<string, Words>> = {
  condition_false: { 'pt-BR': () => 'a condição não vale', en: () => 'its condition does not hold' },
  no_deal: {
    'pt-BR': () => 'nenhum negócio foi criado antes dela',
    en: () => 'no deal was created before it',
  },
  no_cnpj: { 'pt-BR': () => 'o evento não tem CNPJ', en: () => 'the event has no CNPJ' },
  no_company_name: {
    'pt-BR': () => 'nenhuma empresa tem este CNPJ, e o evento não tem nome de empresa para criar uma',
    en: () => 'no company has this CNPJ, and the event has no company name to create one with',
  },
  unusable: {
    'pt-BR': (a, c) =>
      `o valor ${q(a.text('field') || 'corpo')} do registro (${record(c, a.text('record'))}) não serve: ${causeText(a, c)}`,
    en: (a, c) => `its ${a.text('record')}'s ${a.text('field') || 'body'} is unusable: ${causeText(a, c)}`,
  },
  breaks_rule: {
    'pt-BR': (a, c) =>
      `o registro (${record(c, a.text('record'))}) quebra uma regra em ${a.list('fields').join(', ')}`,
    en: (a) => `its ${a.text('record')} breaks a rule at ${a.list('fields').join(', ')}`,
  },
};

const the = (table: Readonly<Record<string, Words>>, code: string, a: Args, c: Said) =>
  Object.hasOwn(table, code) ? table[code]?.[c.lang](a, c) : undefined;

/** A nested cause (a `dropped` value's rule, a skipped action's): worded here, or its own message. */
function causeText(a: Args, c: Said): string {
  const cause = a.cause('cause');
  if (!cause) return '';
  return (cause.args.params !== undefined && the(words, cause.code, cause.args, c)) || cause.message;
}

const formatHelp = {
  'pt-BR':
    'use AAAA (ano), MM (mês), DD (dia), HH (hora), mm (minuto), ss (segundo) e os separadores / - . : , T ou um espaço',
  en: 'use YYYY, MM, DD, HH, mm, ss and the separators / - . : , T or a space',
};

/** A size counted in characters or items: it is had ("Deve ter no máximo 255 caracteres"). */
const counted = (a: Args) => Object.hasOwn(UNITS, a.text('origin'));

/** An enum's values: the field types by the names the type select shows ("Texto", "Data"). */
const allowed = (a: Args, c: Said) => {
  const values = a.list('values');
  return values.every((v) => (fieldTypes as readonly string[]).includes(v))
    ? values.map((v) => typeLabel(c, v))
    : values;
};

/** The string formats zod names in its `invalid_format` (the ones `/v1`'s contracts use). */
const FORMATS: Readonly<Record<string, Readonly<Record<Lang, string>>>> = Object.assign(Object.create(null), {
  email: { 'pt-BR': 'um e-mail válido', en: 'a valid email address' },
  url: { 'pt-BR': 'um endereço (URL) válido', en: 'a valid URL' },
});

/** A `/v1` custom check's code with params: the CNPJ of a company, refused as ingest refuses it. */
/** And zod's own codes, with the params the panel's own validation gives them (fieldErrors). */
const generic = {
  invalid: {
    'pt-BR': (a, c) => `Deve ser ${expected(a, c)}.`,
    en: (a, c) => `Expected ${expected(a, c)}.`,
  },
  too_big: {
    'pt-BR': (a, c) => `${counted(a) ? 'Deve ter' : 'Deve ser'} ${limit(a, c, true)}.`,
    en: (a, c) => `Must be ${limit(a, c, true)}.`,
  },
  too_small: {
    'pt-BR': (a, c) => `${counted(a) ? 'Deve ter' : 'Deve ser'} ${limit(a, c, false)}.`,
    en: (a, c) => `Must be ${limit(a, c, false)}.`,
  },
  invalid_value: {
    'pt-BR': (a, c) =>
      a.has('values')
        ? `Deve ser um destes: ${allowed(a, c).join(', ')}.`
        : `${a.has('sent') ? `${q(a.text('sent'))} não é um dos ${a.text('count')} valores aceitos` : `Deve ser um de ${a.text('count')} valores`}; os mais próximos são ${a.list('nearest').join(', ')}.`,
    en: (a, c) =>
      a.has('values')
        ? `Expected one of: ${allowed(a, c).join(', ')}.`
        : `${a.has('sent') ? `${q(a.text('sent'))} is not one of the ${a.text('count')} allowed values` : `Expected one of ${a.text('count')} values`}; the nearest are ${a.list('nearest').join(', ')}.`,
  },
  invalid_format: {
    'pt-BR': (a, c) => `Deve ser ${FORMATS[a.text('format')]?.[c.lang] ?? a.text('format')}.`,
    en: (a, c) => `Expected ${FORMATS[a.text('format')]?.[c.lang] ?? a.text('format')}.`,
  },
  unknown_field: {
    'pt-BR': (a) => `Campo desconhecido ${q(a.text('key'))}.`,
    en: (a) => `Unknown field ${q(a.text('key'))}.`,
  },
} satisfies Record<string, Words>;

/** The words of every code of src/core/said.ts, in both languages: a missing one does not compile. */
const said: { readonly [C in SaidCode]: Words } = {
  key_declared_twice: {
    'pt-BR': (a) => `A chave ${q(a.text('key'))} foi declarada duas vezes.`,
    en: (a) => `The key ${q(a.text('key'))} is declared twice.`,
  },
  formats_need_date: {
    'pt-BR': (_, c) => `Só um campo do tipo ${typeLabel(c, 'date')} aceita formatos.`,
    en: (_, c) => `Only a field of type ${typeLabel(c, 'date')} takes formats.`,
  },
  locale_needs_number: {
    'pt-BR': (_, c) =>
      `Só um campo do tipo ${typeLabel(c, 'number')} ou ${typeLabel(c, 'boolean')} aceita o formato brasileiro.`,
    en: (_, c) =>
      `Only a field of type ${typeLabel(c, 'number')} or ${typeLabel(c, 'boolean')} takes the Brazilian format.`,
  },
  target_taken: {
    'pt-BR': (a, c) => `Outro campo já preenche ${target(c, a.text('target'))}.`,
    en: (a, c) => `Another field already fills ${target(c, a.text('target'))}.`,
  },
  target_type: {
    'pt-BR': (a, c) => `${target(c, a.text('target'))} aceita um campo do tipo ${types(c, a.list('types'))}.`,
    en: (a, c) => `${target(c, a.text('target'))} takes a field of type ${types(c, a.list('types'))}.`,
  },
  unknown_target: {
    'pt-BR': (a) => `${q(a.text('target'))} não é um destino: escolha um da lista.`,
    en: (a) => `${q(a.text('target'))} is not a target: pick one from the list.`,
  },
  undeclared_field: {
    'pt-BR': (a) => `${q(a.text('key'))} não é um campo declarado.`,
    en: (a) => `${q(a.text('key'))} is not a declared field.`,
  },
  when_type_mismatch: {
    'pt-BR': (a, c) =>
      `${q(a.text('key'))} é do tipo ${typeLabel(c, a.text('type'))}: compare com um valor do tipo ${kindLabel(c, a.text('kind'))}.`,
    en: (a, c) =>
      `${q(a.text('key'))} is of type ${typeLabel(c, a.text('type'))}: compare it with a ${kindLabel(c, a.text('kind'))}.`,
  },
  when_value_needed: {
    'pt-BR': (_, c) =>
      `${['equals', 'not_equals', 'contains'].map((o) => q(opLabel(c, o))).join(', ')} precisam de um valor.`,
    en: (_, c) =>
      `${['equals', 'not_equals', 'contains'].map((o) => q(opLabel(c, o))).join(', ')} need a value.`,
  },
  action_once: {
    'pt-BR': (a, c) => `Só pode haver uma ação ${q(actionLabel(c, a.text('action')))}.`,
    en: (a, c) => `Only one ${q(actionLabel(c, a.text('action')))} action.`,
  },
  deal_order: {
    'pt-BR': (a, c) =>
      `${q(actionLabel(c, 'create_deal'))} precisa vir depois de ${q(actionLabel(c, a.text('action')))}.`,
    en: (a, c) =>
      `${q(actionLabel(c, 'create_deal'))} must come after ${q(actionLabel(c, a.text('action')))}.`,
  },
  deal_name_needed: {
    'pt-BR': (_, c) => `Dê um modelo de nome ou ligue um campo a ${target(c, 'deal.name')}.`,
    en: (_, c) => `Give a name template or map a field to ${target(c, 'deal.name')}.`,
  },
  task_needs_deal: {
    'pt-BR': (_, c) =>
      `${q(actionLabel(c, 'create_task'))} precisa de um ${q(actionLabel(c, 'create_deal'))} antes.`,
    en: (_, c) =>
      `${q(actionLabel(c, 'create_task'))} needs a ${q(actionLabel(c, 'create_deal'))} before it.`,
  },
  due_from_date: {
    'pt-BR': (_, c) => `Use received_at (a hora do recebimento) ou um campo do tipo ${typeLabel(c, 'date')}.`,
    en: (_, c) => `Use received_at (the time received) or a field of type ${typeLabel(c, 'date')}.`,
  },
  target_unmapped: {
    'pt-BR': (a, c) => `Nenhum campo está ligado a ${target(c, a.text('target'))}.`,
    en: (a, c) => `No field is mapped to ${target(c, a.text('target'))}.`,
  },
  not_dot_path: {
    'pt-BR': () =>
      'Deve ser o nome do campo como o remetente o envia, sem espaços; para um campo dentro de outro, os nomes separados por um ponto, como lead.telefone.',
    en: () =>
      "Must be the field's name as the sender sends it, without spaces; for a field inside another, the names joined by one dot, such as lead.phone.",
  },
  too_deep: {
    'pt-BR': (a) => `No máximo ${a.text('max')} níveis: corpos mais fundos são recusados.`,
    en: (a) => `At most ${a.text('max')} levels: deeper bodies are refused.`,
  },
  format_token_twice: {
    'pt-BR': (a, c) => `${shownFormat(c.lang, a.text('token'))} aparece duas vezes.`,
    en: (a) => `${a.text('token')} appears twice.`,
  },
  format_unknown_token: {
    'pt-BR': (a) => `Parte desconhecida ${q(a.text('token'))}: ${formatHelp['pt-BR']}.`,
    en: (a) => `Unknown part ${q(a.text('token'))}: ${formatHelp.en}.`,
  },
  format_part_missing: {
    'pt-BR': (a, c) => `Um formato precisa de AAAA, MM e DD; falta ${shownFormat(c.lang, a.text('part'))}.`,
    en: (a) => `A format needs YYYY, MM and DD; ${a.text('part')} is missing.`,
  },
  format_part_needs: {
    'pt-BR': (a, c) =>
      `${shownFormat(c.lang, a.text('token'))} exige ${shownFormat(c.lang, a.text('needs'))}.`,
    en: (a) => `${a.text('token')} needs ${a.text('needs')}.`,
  },
  not_found: {
    'pt-BR': (a, c) =>
      a.text('record') === 'user'
        ? c.users?.has(a.num('id'))
          ? `${goneUsers(c, [a.text('id')])}: escolha outro responsável.`
          : `Nenhum usuário ${a.text('id')} nesta conta.`
        : `Nenhum registro (${record(c, a.text('record'))}) ${a.text('id')} nesta conta.`,
    en: (a, c) =>
      a.text('record') === 'user' && c.users?.has(a.num('id'))
        ? `${goneUsers(c, [a.text('id')])}: pick another owner.`
        : `No ${a.text('record')} ${a.text('id')} in this account.`,
  },
  reserved_key: {
    'pt-BR': (a) =>
      a.has('more')
        ? `Ignoradas: mais ${a.text('more')} ${a.num('more') === 1 ? 'chave chamada' : 'chaves chamadas'} __proto__, prototype ou constructor.`
        : `${a.has('left_out') ? 'Ignorada: ' : ''}${q(a.text('key'))} é um nome reservado: use outra chave.`,
    en: (a) =>
      a.has('more')
        ? `Left out: ${a.text('more')} more key${a.num('more') === 1 ? '' : 's'} named __proto__, prototype or constructor.`
        : `${a.has('left_out') ? 'Left out: ' : ''}${q(a.text('key'))} is a reserved name: use another key.`,
  },
  required: { 'pt-BR': () => 'Este campo é obrigatório.', en: () => 'This field is required.' },
  invalid_type: {
    'pt-BR': (a, c) => `Deve ser ${expected(a, c)}.${brazilianHint(a, c)}`,
    en: (a, c) => `Expected ${expected(a, c)}.${brazilianHint(a, c)}`,
  },
  dropped: {
    'pt-BR': (a, c) =>
      a.has('record')
        ? `Ignorado no registro (${record(c, a.text('record'))}): ${causeText(a, c)}`
        : `Ignorado: deveria ser ${expected(a, c)}.`,
    en: (a, c) =>
      a.has('record')
        ? `Left out of the ${a.text('record')}: ${causeText(a, c)}`
        : `Left out: expected ${expected(a, c)}.`,
  },
  decoded_as_windows_1252: {
    'pt-BR': (a) =>
      `Não era UTF-8 válido: lido como Windows-1252 (Latin-1). Declare o charset no Content-Type ou envie UTF-8.${a.has('more') ? ` O mesmo com mais ${a.text('more')} chaves.` : ''}`,
    en: (a) =>
      `Not valid UTF-8: read as Windows-1252 (Latin-1). Declare the charset in the Content-Type, or send UTF-8.${a.has('more') ? ` So were ${a.text('more')} more keys.` : ''}`,
  },
  unsafe_integer: {
    'pt-BR': (a) =>
      `${a.text('sent')} passa de ±9007199254740991, o maior inteiro que um número JSON guarda exato: ${a.text('outcome') === 'refused' ? 'seria guardado' : 'foi lido'} como ${a.text('becomes') || 'infinito'}; envie-o como texto.`,
    en: (a) =>
      `${a.text('sent')} is beyond ±9007199254740991, the whole numbers a JSON number holds exactly: ${a.text('outcome') === 'refused' ? 'it would be stored' : 'it is read'} as ${a.text('becomes') || 'an infinity'}; send it as a string.`,
  },
  body_trimmed: {
    'pt-BR': (a) =>
      `O corpo tinha ${a.text('kib')} KiB: o evento guarda os campos declarados e ${a.text('kept_kib')} KiB do resto; ${a.text('left')} ${a.num('left') === 1 ? 'valor ficou' : 'valores ficaram'} de fora (${a.list('shown').join(', ')}${a.num('left') > a.list('shown').length ? ', …' : ''}).`,
    en: (a) =>
      `The body was ${a.text('kib')} KiB: the event keeps its declared fields and ${a.text('kept_kib')} KiB of the rest; ${a.text('left')} value${a.num('left') === 1 ? ' was' : 's were'} left out (${a.list('shown').join(', ')}${a.num('left') > a.list('shown').length ? ', …' : ''}).`,
  },
  step_skipped: {
    'pt-BR': (a, c) => `${actionName(c, a)} não rodou: ${reasonText(a, c)}.`,
    en: (a, c) => `${actionName(c, a)} did not run: ${reasonText(a, c)}.`,
  },
  no_due_date: {
    'pt-BR': (a) => `O evento não tem um ${q(a.text('key'))} utilizável: a tarefa foi criada sem prazo.`,
    en: (a) => `The event has no usable ${q(a.text('key'))}: the task was created without a due date.`,
  },
  contact_named_from: {
    'pt-BR': (a, c) =>
      `O evento não tem nome de contato e nenhum contato existente coincidiu: o novo contato leva o ${matchKeyLabel(c, a.text('by')).toLowerCase()}, ${a.text('value')}.`,
    en: (a, c) =>
      `The event has no contact name and no existing contact matched: the new contact is named after its ${matchKeyLabel(c, a.text('by')).toLowerCase()}, ${a.text('value')}.`,
  },
  custom_fields_full: {
    'pt-BR': (a) => `ele já tem ${a.text('max')} campos personalizados, o máximo.`,
    en: (a) => `it has ${a.text('max')} custom fields already, the most it may have.`,
  },
  owner_unavailable: {
    'pt-BR': (a, c) =>
      `${goneUsers(c, a.list('user_ids'))}: ${a.num('left') > 0 ? 'o rodízio seguiu sem eles' : `${actionName(c, a)} rodou sem responsável`}.`,
    en: (a, c) =>
      `${goneUsers(c, a.list('user_ids'))}: ${a.num('left') > 0 ? 'the round robin went on without them' : `${actionName(c, a)} ran without an owner`}.`,
  },
  mapping_changed: {
    'pt-BR': (a, c) => `O mapeamento mudou e o evento não se encaixa mais nele: ${fieldErrorsText(a, c)}`,
    en: (a, c) => `The mapping changed and the event no longer fits it: ${fieldErrorsText(a, c)}`,
  },
  contact_unnamed: {
    'pt-BR': () =>
      'Para criar um contato é preciso um nome, e o evento não tem nome, e-mail nem telefone para nomeá-lo (nenhum contato existente coincidiu).',
    en: () =>
      'Creating a contact needs a name, and the event has no name, email or phone to name it after (no existing contact matched).',
  },
  record_unwritable: {
    'pt-BR': (a) => `Um registro não pôde ser gravado: ${a.text('detail')}`,
    en: (a) => `A record could not be written: ${a.text('detail')}`,
  },
  retrying: {
    'pt-BR': (a) => `Falha temporária, nova tentativa agendada: ${a.text('detail')}`,
    en: (a) => `A transient failure, retried: ${a.text('detail')}`,
  },
  gave_up: {
    'pt-BR': (a) =>
      `Desistimos após ${a.text('attempts')} ${a.num('attempts') === 1 ? 'tentativa' : 'tentativas'}: ${a.text('last') || 'erro desconhecido'}`,
    en: (a) =>
      `Gave up after ${a.text('attempts')} attempt${a.num('attempts') === 1 ? '' : 's'}: ${a.text('last') || 'unknown error'}`,
  },
};

/** A failure's field errors (`path: words`), each worded from its own code when it has one. */
function fieldErrorsText(a: Args, c: Said): string {
  return a
    .causes('errors')
    .map((e) => `${e.path}: ${(e.args.params !== undefined && the(words, e.code, e.args, c)) || e.message}`)
    .join('; ');
}

function reasonText(a: Args, c: Said): string {
  const reason = a.cause('reason');
  if (!reason) return '';
  return the(reasons, reason.code, reason.args, c) ?? (reason.message || reason.code);
}

/** Every code the panel words: the API's (src/core/said.ts) and the field errors of `/v1`'s zod. */
const words: Readonly<Record<string, Words>> = { ...generic, ...said };

/** The codes worded here, and the sub-tables' codes: a test holds each to both languages. */
export const wordedCodes = { codes: Object.keys(words), expectationCodes, reasonCodes };
export const wordsFor = (table: 'codes' | 'expectations' | 'reasons', code: string, a: Args, c: Said) =>
  the(table === 'codes' ? words : table === 'expectations' ? expectations : reasons, code, a, c);

/**
 * One message of the API in the page's language, from its code and params. A message without
 * params (an event stored before codes existed) or of a code not worded here keeps its English.
 */
export function saidText(
  c: Said,
  m: { code?: string | undefined; params?: unknown; message: string },
): string {
  if (m.params === undefined || m.params === null || typeof m.params !== 'object' || !m.code)
    return m.message;
  return the(words, m.code, new Args(m.params), c) ?? m.message;
}

/**
 * A refused configuration's error led by the action it is in, as the flow editor shows it ("Ação 2
 * · Criar negócio: …"), read from its path (`flows.<n>…`) against the flows that were sent.
 */
export function configErrorText(
  c: Said,
  e: { path: string; code?: string | undefined; params?: unknown; message: string },
  flows: readonly { action?: unknown }[],
): string {
  const text = saidText(c, e);
  const at = /^flows\.(\d+)(?:\.|$)/.exec(e.path);
  const index = Number(at?.[1]);
  const action = at ? flows[index]?.action : undefined;
  return typeof action === 'string' ? `${actionName(c, new Args({ action, index }))}: ${text}` : text;
}

/**
 * An event's failure in the page's language, from its `error_code` and `error_params`; an event
 * failed before codes existed keeps its English `error` (the one fallback).
 */
export const failureText = (
  c: Said,
  e: { error: string | null; error_code?: string | null; error_params?: unknown },
): string | null =>
  e.error === null
    ? null
    : saidText(c, { code: e.error_code ?? undefined, params: e.error_params, message: e.error });

/**
 * The detail of a refused call (what its sender was answered) or of a refused query, by the
 * problem's code: the same words whatever version stored the event.
 */
const details: Readonly<Record<string, Words>> = {
  invalid_fields: {
    'pt-BR': () => 'Faltam campos obrigatórios ou algum é inválido; veja os erros.',
    en: () => 'Some required fields are missing or invalid; see the errors.',
  },
  malformed_json: {
    'pt-BR': () => 'O Content-Type é JSON, mas o corpo não é um JSON válido.',
    en: () => 'The Content-Type is JSON, but the body is not valid JSON.',
  },
  malformed_form: {
    'pt-BR': () => 'O corpo não é um formulário válido (application/x-www-form-urlencoded).',
    en: () => 'The body is not a valid form (application/x-www-form-urlencoded).',
  },
  body_not_object: {
    'pt-BR': () => 'O corpo precisa ser um objeto JSON.',
    en: () => 'The body must be a JSON object.',
  },
  body_too_deep: {
    'pt-BR': () => 'O corpo aninha objetos e listas fundo demais.',
    en: () => 'The body nests objects and lists too deep.',
  },
  body_too_large: {
    'pt-BR': (a) =>
      a.has('max') ? `O corpo passa de ${a.text('max')} bytes.` : 'O corpo passa do tamanho máximo.',
    en: (a) =>
      a.has('max') ? `The body is over ${a.text('max')} bytes.` : 'The body is over the size limit.',
  },
  body_unreadable: {
    'pt-BR': () => 'O corpo chegou cortado; envie o pedido de novo.',
    en: () => 'The body broke off before its end; send the request again.',
  },
  unsupported_media_type: {
    'pt-BR': () => 'Content-Type não aceito: envie application/json ou application/x-www-form-urlencoded.',
    en: () => 'Content-Type not accepted: send application/json or application/x-www-form-urlencoded.',
  },
  invalid_signature: {
    'pt-BR': () => 'A assinatura não passou; veja o erro.',
    en: () => 'The signature failed a check; see the error.',
  },
  idempotency_key_reused: {
    'pt-BR': () => 'Este Idempotency-Key já veio com outro corpo: o primeiro evento vale.',
    en: () => 'This Idempotency-Key came before with another body: the first event stands.',
  },
  invalid_query: {
    'pt-BR': () => 'Os filtros do endereço não são válidos.',
    en: () => 'The filters in the address are not valid.',
  },
  invalid_cursor: {
    'pt-BR': () => 'O link de página não é válido: volte à primeira página.',
    en: () => 'The page link is not valid: go back to the first page.',
  },
  missing_signature: {
    'pt-BR': () => 'Falta o X-Signature: este webhook tem um segredo.',
    en: () => 'X-Signature is missing: this webhook has a secret.',
  },
  malformed_signature: {
    'pt-BR': () => 'O X-Signature precisa ser "sha256=" seguido de 64 dígitos hexadecimais.',
    en: () => 'X-Signature must be "sha256=" followed by 64 hexadecimal digits.',
  },
  missing_timestamp: {
    'pt-BR': () => 'Falta o X-Timestamp: envie a hora unix (segundos) que você assinou.',
    en: () => 'X-Timestamp is missing: send the unix time (seconds) you signed.',
  },
  malformed_timestamp: {
    'pt-BR': () =>
      'O X-Timestamp precisa ser a hora unix em segundos inteiros: até 12 dígitos, não milissegundos.',
    en: () => 'X-Timestamp must be unix time in whole seconds: up to 12 digits, not milliseconds.',
  },
  stale_timestamp: {
    'pt-BR': (a) =>
      a.has('seconds')
        ? `O X-Timestamp está ${a.text('seconds')} segundos ${a.text('direction') === 'old' ? 'no passado' : 'no futuro'}; no máximo ${a.text('max')} para qualquer lado.`
        : 'O X-Timestamp está a mais de 5 minutos da hora do servidor.',
    en: (a) =>
      a.has('seconds')
        ? `X-Timestamp is ${a.text('seconds')} seconds ${a.text('direction') === 'old' ? 'old' : 'in the future'}; at most ${a.text('max')} either way.`
        : 'X-Timestamp is more than 5 minutes away from the server’s clock.',
  },
  digest_mismatch: {
    'pt-BR': () =>
      'O X-Signature não confere: precisa ser o HMAC-SHA256, com o segredo do webhook, de "<X-Timestamp>.<corpo>", o corpo exatamente como enviado.',
    en: () =>
      'X-Signature does not match: it must be the HMAC-SHA256, under the webhook\'s secret, of "<X-Timestamp>.<raw body>", the body exactly as sent.',
  },
};

/** The codes of refusals worded here (a test holds each to both languages). */
export const detailCodes = Object.keys(details);

/**
 * A refusal's detail (or a signature failure's message) by its code and the problem's params (a
 * size limit); an unknown code keeps its text.
 */
export const detailText = (c: Said, code: string, detail: string, params?: unknown): string =>
  the(details, code, new Args(params), c) ?? detail;
