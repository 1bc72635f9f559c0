import type { Lang } from './i18n';
import { actionLabel } from './labels';
import { dayText } from './zone';

// A test event's preview (src/webhooks/processing/records.ts `preview`) as a sentence in the page's language:
// what production would write, with owners by name. Pure: the page passes the names it read in its
// one batch and the way it writes a time.

type Verb = 'create' | 'update';
type Entry = { action?: unknown; id?: unknown; fields?: unknown };
type Clause = { verb: Verb; text: string };

/** What the sentence needs besides the preview. */
export type PreviewContext = {
  lang: Lang;
  /** The users the preview names, by id. */
  owners: ReadonlyMap<number, string>;
  /** A time as the page writes it (its zone, its format). */
  time: (iso: string) => string;
};

const words = {
  'pt-BR': {
    verbs: { create: 'cria', update: 'atualiza' },
    contact: 'o contato',
    company: 'a empresa',
    deal: 'um negócio',
    task: 'uma tarefa',
    number: 'nº ',
    for: 'para',
    due: 'prazo',
    user: 'usuário nº ',
    nothing: 'Não cria nem atualiza nenhum registro.',
    skipped: (n: number, reason: string) => `A ação ${n} não roda: ${reason}.`,
    action: 'Ação',
    notRun: 'não roda porque',
    reasons: {
      'its condition does not hold': 'a condição dela não se cumpre',
      'the event has no CNPJ': 'o evento não traz CNPJ',
      'no deal was created before it': 'nenhum negócio foi criado antes dela',
      'no company has this CNPJ, and the event has no company name to create one with':
        'nenhuma empresa tem este CNPJ, e o evento não traz um nome de empresa para criá-la',
    } as Record<string, string>,
  },
  en: {
    verbs: { create: 'creates', update: 'updates' },
    contact: 'the contact',
    company: 'the company',
    deal: 'a deal',
    task: 'a task',
    number: '#',
    for: 'for',
    due: 'due',
    user: 'user #',
    nothing: 'Creates or updates no record.',
    skipped: (n: number, reason: string) => `Action ${n} does not run: ${reason}.`,
    action: 'Action',
    notRun: 'does not run:',
    reasons: {} as Record<string, string>,
  },
} as const;

/** A Brazilian number as people write it (+55 11 91234-5678); any other as stored. */
export function phoneText(phone: string): string {
  const br = /^\+55(\d{2})(\d{4,5})(\d{4})$/.exec(phone);
  return br ? `+55 ${br[1]} ${br[2]}-${br[3]}` : phone;
}

/** A CNPJ's 14 digits as written on paper (12.345.678/0001-95). */
export function cnpjText(cnpj: string): string {
  const m = /^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/.exec(cnpj);
  return m ? `${m[1]}.${m[2]}.${m[3]}/${m[4]}-${m[5]}` : cnpj;
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const fieldsOf = (e: Entry): Record<string, unknown> =>
  e.fields !== null && typeof e.fields === 'object' ? (e.fields as Record<string, unknown>) : {};
const entryOf = (value: unknown): Entry | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Entry) : undefined;

function ownerText(f: Record<string, unknown>, ctx: PreviewContext): string {
  const id = f.owner_id;
  if (typeof id !== 'number') return '';
  const w = words[ctx.lang];
  return ` ${w.for} ${ctx.owners.get(id) ?? `${w.user}${id}`}`;
}

/** The record a contact or company entry names: its name, or its number for an update. */
function named(e: Entry, lang: Lang): string {
  const name = str(fieldsOf(e).name);
  if (name) return ` ${name}`;
  return typeof e.id === 'number' ? ` ${words[lang].number}${e.id}` : '';
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A custom field's value as a person reads it: a date as they write it (15/03/2025, Mar 15, 2025),
 * an instant as the page writes times, anything else as stored.
 */
function valueText(value: unknown, ctx: PreviewContext): string {
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  return dayText(text, ctx.lang) ?? (INSTANT.test(text) ? ctx.time(text) : text);
}

/** A record's custom fields as `key: value`, so the summary shows every field the event fills. */
function customTexts(f: Record<string, unknown>, ctx: PreviewContext): string[] {
  const custom = f.custom_fields;
  if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) return [];
  return Object.entries(custom).flatMap(([key, value]) =>
    value === null || value === undefined || value === '' ? [] : [`${key}: ${valueText(value, ctx)}`],
  );
}

const detailOf = (parts: unknown[]) => {
  const shown = parts.filter((x): x is string => typeof x === 'string' && x !== '');
  return shown.length ? ` (${shown.join(', ')})` : '';
};

function contactClause(e: Entry, ctx: PreviewContext): Clause {
  const f = fieldsOf(e);
  const detail = detailOf([
    str(f.phone) && phoneText(f.phone as string),
    str(f.email),
    ...customTexts(f, ctx),
  ]);
  return {
    verb: verbOf(e),
    text: `${words[ctx.lang].contact}${named(e, ctx.lang)}${detail}${ownerText(f, ctx)}`,
  };
}

function companyClause(e: Entry, ctx: PreviewContext): Clause {
  const f = fieldsOf(e);
  const cnpj = str(f.cnpj) ? ` (CNPJ ${cnpjText(f.cnpj as string)})` : '';
  return {
    verb: verbOf(e),
    text: `${words[ctx.lang].company}${named(e, ctx.lang)}${cnpj}${ownerText(f, ctx)}`,
  };
}

/** A deal or a task: its quoted name, owner and (a task's) due time. */
function itemClause(kind: 'deal' | 'task', e: Entry, ctx: PreviewContext): Clause {
  const f = fieldsOf(e);
  const w = words[ctx.lang];
  const name = `${str(f.name) ? ` '${f.name}'` : ''}${detailOf(customTexts(f, ctx))}`;
  const due = str(f.due_date) ? `, ${w.due} ${ctx.time(f.due_date as string)}` : '';
  return { verb: verbOf(e), text: `${w[kind]}${name}${ownerText(f, ctx)}${due}` };
}

const verbOf = (e: Entry): Verb => (e.action === 'update' ? 'update' : 'create');

/** The clauses of a preview, in the order production writes them. */
function clausesOf(preview: Record<string, unknown>, ctx: PreviewContext): Clause[] {
  const out: Clause[] = [];
  const contact = entryOf(preview.contact);
  if (contact) out.push(contactClause(contact, ctx));
  const company = entryOf(preview.company);
  if (company) out.push(companyClause(company, ctx));
  const deal = entryOf(preview.deal);
  if (deal) out.push(itemClause('deal', deal, ctx));
  const tasks = Array.isArray(preview.tasks) ? preview.tasks : [];
  for (const task of tasks) {
    const e = entryOf(task);
    if (e) out.push(itemClause('task', e, ctx));
  }
  return out;
}

/** Each action the preview says was skipped, with its reason (in the page's language if known). */
function skippedSentences(preview: Record<string, unknown>, ctx: PreviewContext): string[] {
  const w = words[ctx.lang];
  const skipped = Array.isArray(preview.skipped) ? preview.skipped : [];
  return skipped.flatMap((s: unknown) => {
    const { index, reason, action } = (entryOf(s) ?? {}) as Record<string, unknown>;
    if (typeof index !== 'number' || typeof reason !== 'string') return [];
    const text = w.reasons[reason] ?? reason;
    // Named as the warnings name it ("Ação 2 · Criar ou atualizar empresa"), not by its number alone.
    if (typeof action !== 'string') return [w.skipped(index + 1, text)];
    return [`${w.action} ${index + 1} · ${actionLabel(ctx, action)}: ${w.notRun} ${text}.`];
  });
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The preview as sentences: one naming every record it writes ("Creates the contact Exemplo
 * (+55 11 91234-5678); a deal 'Lead site - Exemplo' for Ana Souza; …", the verb said again only
 * where it changes), then one per skipped action.
 */
export function previewSentences(preview: Record<string, unknown>, ctx: PreviewContext): string[] {
  const w = words[ctx.lang];
  const clauses = clausesOf(preview, ctx);
  const parts = clauses.map((c, i) =>
    i > 0 && clauses[i - 1]?.verb === c.verb ? c.text : `${w.verbs[c.verb]} ${c.text}`,
  );
  const first = parts.length ? `${capital(parts.join('; '))}.` : w.nothing;
  return [first, ...skippedSentences(preview, ctx)];
}
