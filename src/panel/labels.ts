import type { eventStatuses, webhookModes } from '../core/statuses';
import { actions } from '../webhooks/actions';
import type { ActionName } from '../webhooks/actions/action';
import type { MATCH_KEYS } from '../webhooks/config/schema';
import type { fixedTargets, whenOps } from '../webhooks/rules/config';
import type { fieldTypes } from '../webhooks/rules/fields';
import type { Lang } from './i18n';

// What the panel shows for each value of the API's enums, in both languages: a select's <option>
// keeps the API name as its value and shows the label. Each table is typed by its enum, so a new
// member without a label in both languages does not compile.

type Labels<T extends string> = { readonly [L in Lang]: { readonly [K in T]: string } };
type Of<A extends readonly string[]> = A[number];
type WithLang = { lang: Lang };

export type EventStatus = Of<typeof eventStatuses>;
export type ValueKind = 'string' | 'number' | 'boolean';

export const statusLabels: Labels<EventStatus> = {
  'pt-BR': {
    pending: 'Pendente',
    processed: 'Processado',
    failed: 'Falhou',
    test: 'Teste',
    rejected: 'Recusado',
  },
  en: { pending: 'Pending', processed: 'Processed', failed: 'Failed', test: 'Test', rejected: 'Rejected' },
};

export const modeLabels: Labels<Of<typeof webhookModes>> = {
  'pt-BR': { production: 'Produção', test: 'Teste' },
  en: { production: 'Production', test: 'Test' },
};

export const typeLabels: Labels<Of<typeof fieldTypes>> = {
  'pt-BR': {
    string: 'Texto',
    number: 'Número',
    boolean: 'Sim/não',
    date: 'Data',
    phone: 'Telefone',
    email: 'E-mail',
    cnpj: 'CNPJ',
  },
  en: {
    string: 'Text',
    number: 'Number',
    boolean: 'Yes/no',
    date: 'Date',
    phone: 'Phone',
    email: 'Email',
    cnpj: 'CNPJ',
  },
};

export const opLabels: Labels<Of<typeof whenOps>> = {
  'pt-BR': {
    exists: 'Está preenchido',
    equals: 'É igual a',
    not_equals: 'É diferente de',
    contains: 'Contém',
  },
  en: { exists: 'Is filled in', equals: 'Equals', not_equals: 'Does not equal', contains: 'Contains' },
};

/** The flow actions' labels are their modules' own (src/webhooks/actions/), in both languages. */
const labelsOf = (lang: Lang) => Object.fromEntries(actions.map((m) => [m.name, m.labels[lang]]));
export const actionLabels = { 'pt-BR': labelsOf('pt-BR'), en: labelsOf('en') } as Labels<ActionName>;

export const matchKeyLabels: Labels<Of<typeof MATCH_KEYS>> = {
  'pt-BR': { phone: 'Telefone', email: 'E-mail' },
  en: { phone: 'Phone', email: 'Email' },
};

export const kindLabels: Labels<ValueKind> = {
  'pt-BR': { string: 'Texto', number: 'Número', boolean: 'Sim/não (true/false)' },
  en: { string: 'Text', number: 'Number', boolean: 'Yes/no (true/false)' },
};

export const targetLabels: Labels<keyof typeof fixedTargets> = {
  'pt-BR': {
    'contact.name': 'Nome do contato',
    'contact.email': 'E-mail do contato',
    'contact.phone': 'Telefone do contato',
    'deal.name': 'Nome do negócio',
    'deal.value': 'Valor do negócio',
    'company.name': 'Nome da empresa',
    'company.cnpj': 'CNPJ da empresa',
  },
  en: {
    'contact.name': "Contact's name",
    'contact.email': "Contact's email",
    'contact.phone': "Contact's phone",
    'deal.name': "Deal's name",
    'deal.value': "Deal's value",
    'company.name': "Company's name",
    'company.cnpj': "Company's CNPJ",
  },
};

/**
 * The codes of an event's errors and warnings (src/webhooks/rules/fields.ts, outside-keys.ts, the
 * flows' run) and of a refused call (src/routes/hooks.ts, auth/signatures.ts), for the event page.
 */
export const eventCodes = [
  'required',
  'invalid_type',
  'dropped',
  'reserved_key',
  'step_skipped',
  'no_due_date',
  'owner_unavailable',
  'contact_named_from',
  'invalid_fields',
  'malformed_json',
  'malformed_form',
  'body_not_object',
  'body_too_large',
  'body_unreadable',
  'unsupported_media_type',
  'invalid_signature',
  'missing_signature',
  'malformed_signature',
  'missing_timestamp',
  'malformed_timestamp',
  'stale_timestamp',
  'digest_mismatch',
] as const;

export const codeLabels: Labels<(typeof eventCodes)[number]> = {
  'pt-BR': {
    required: 'Obrigatório ausente',
    invalid_type: 'Valor inválido',
    dropped: 'Valor ignorado',
    reserved_key: 'Chave reservada ignorada',
    step_skipped: 'Ação não executada',
    no_due_date: 'Tarefa sem prazo',
    owner_unavailable: 'Responsável indisponível',
    contact_named_from: 'Contato nomeado pelo e-mail ou telefone',
    invalid_fields: 'Campos inválidos',
    malformed_json: 'JSON inválido',
    malformed_form: 'Formulário inválido',
    body_not_object: 'Corpo não é um objeto',
    body_too_large: 'Corpo grande demais',
    body_unreadable: 'Corpo interrompido',
    unsupported_media_type: 'Content-Type não aceito',
    invalid_signature: 'Assinatura inválida',
    missing_signature: 'Sem assinatura',
    malformed_signature: 'Assinatura malformada',
    missing_timestamp: 'Sem X-Timestamp',
    malformed_timestamp: 'X-Timestamp malformado',
    stale_timestamp: 'X-Timestamp antigo demais',
    digest_mismatch: 'Assinatura não confere',
  },
  en: {
    required: 'Required value missing',
    invalid_type: 'Invalid value',
    dropped: 'Value left out',
    reserved_key: 'Reserved key left out',
    step_skipped: 'Action not run',
    no_due_date: 'Task without a due date',
    owner_unavailable: 'Owner unavailable',
    contact_named_from: 'Contact named after its email or phone',
    invalid_fields: 'Invalid fields',
    malformed_json: 'Invalid JSON',
    malformed_form: 'Invalid form',
    body_not_object: 'Body is not an object',
    body_too_large: 'Body too large',
    body_unreadable: 'Body cut short',
    unsupported_media_type: 'Content-Type not accepted',
    invalid_signature: 'Invalid signature',
    missing_signature: 'No signature',
    malformed_signature: 'Malformed signature',
    missing_timestamp: 'No X-Timestamp',
    malformed_timestamp: 'Malformed X-Timestamp',
    stale_timestamp: 'X-Timestamp too old',
    digest_mismatch: 'Signature does not match',
  },
};

/** The label of a member, or the text itself when it is none (a stored value from an older version). */
const pick = <T extends string>(table: Labels<T>, p: WithLang, value: string): string =>
  Object.hasOwn(table[p.lang], value) ? table[p.lang][value as T] : value;

export const statusLabel = (p: WithLang, s: string) => pick(statusLabels, p, s);
export const modeLabel = (p: WithLang, m: string) => pick(modeLabels, p, m);
export const typeLabel = (p: WithLang, t: string) => pick(typeLabels, p, t);
export const opLabel = (p: WithLang, o: string) => pick(opLabels, p, o);
export const actionLabel = (p: WithLang, a: string) => pick(actionLabels, p, a);
export const matchKeyLabel = (p: WithLang, k: string) => pick(matchKeyLabels, p, k);
export const kindLabel = (p: WithLang, k: string) => pick(kindLabels, p, k);
/** A target as the guided mapping offers it, record first: "Contato › Telefone". */
export const pickedTargetLabels: Labels<keyof typeof fixedTargets> = {
  'pt-BR': {
    'contact.name': 'Contato › Nome',
    'contact.email': 'Contato › E-mail',
    'contact.phone': 'Contato › Telefone',
    'deal.name': 'Negócio › Nome',
    'deal.value': 'Negócio › Valor',
    'company.name': 'Empresa › Nome',
    'company.cnpj': 'Empresa › CNPJ',
  },
  en: {
    'contact.name': 'Contact › Name',
    'contact.email': 'Contact › Email',
    'contact.phone': 'Contact › Phone',
    'deal.name': 'Deal › Name',
    'deal.value': 'Deal › Value',
    'company.name': 'Company › Name',
    'company.cnpj': 'Company › CNPJ',
  },
};

export const targetLabel = (p: WithLang, t: string) => pick(targetLabels, p, t);
export const pickedTargetLabel = (p: WithLang, t: string) => pick(pickedTargetLabels, p, t);
/** An event error's, warning's or refusal's code; the page shows the code itself beside it, in <code>. */
export const codeLabel = (p: WithLang, c: string) => pick(codeLabels, p, c);

/** Every label table, by the enum it names: the tests check each in both languages. */
export const allLabels = {
  statusLabels,
  modeLabels,
  typeLabels,
  opLabels,
  actionLabels,
  matchKeyLabels,
  kindLabels,
  targetLabels,
  pickedTargetLabels,
  codeLabels,
} as const;
