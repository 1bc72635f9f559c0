import type { z } from '@hono/zod-openapi';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Company } from '../../contracts/companies';
import type { Contact } from '../../contracts/contacts';
import type { Deal } from '../../contracts/deals';
import type { Task } from '../../contracts/tasks';
import type { Scope } from '../../core/scopes';
import type { dealStatuses } from '../../core/statuses';
import { TRASH_MS } from '../../db/live';
import type { WritingEvent } from '../../webhooks/log/result-records';
import { type Exported, exportHref } from '../exports';
import type { Messages } from '../i18n';
import { importWords } from '../import-words';
import { dayText } from '../zone';
import { layout, type Page, when } from './layout';

// The read-only pages of a contact, a deal, a task and a company: what an event's result links to.

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A record another one names: its id, its name and whether it is in the trash. */
export type Named = { id: number; name: string; deletedAt: number | null };
/** A row of a record's list of others (a contact's deals, a deal's tasks...). */
export type Listed = Named & { when?: string | null; status?: (typeof dealStatuses)[number] };
/** A list shown under a record, and whether more rows exist than it shows. */
export type Shown = { rows: Listed[]; more: boolean };

export type ContactRecord = z.infer<typeof Contact>;
export type DealRecord = z.infer<typeof Deal>;
export type TaskRecord = z.infer<typeof Task>;
export type CompanyRecord = z.infer<typeof Company>;

const KINDS = {
  contacts: { scope: 'contacts:read', word: 'recContact' },
  companies: { scope: 'companies:read', word: 'recCompany' },
  deals: { scope: 'deals:read', word: 'recDeal' },
  tasks: { scope: 'tasks:read', word: 'recTask' },
  users: { scope: 'users:read', word: 'recUser' },
} as const satisfies Record<string, { scope: Scope; word: keyof Messages }>;

type Kind = keyof typeof KINDS;

/** `+55 11 91234-5678` for a Brazilian number; any other E.164 number as stored. */
export function phoneText(e164: string): string {
  const br = /^\+55(\d{2})(\d{4,5})(\d{4})$/.exec(e164);
  return br ? `+55 ${br[1]} ${br[2]}-${br[3]}` : e164;
}

/** `12.345.678/0001-90`; a value that is not 14 characters as stored. */
export const cnpjText = (cnpj: string): string =>
  /^[0-9A-Z]{12}\d{2}$/.test(cnpj)
    ? `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`
    : cnpj;

/** An amount in reais, in the page's language (`R$ 120.000,00`, `R$120,000.00`). */
export const moneyText = (p: Page, value: number): string =>
  new Intl.NumberFormat(p.lang, { style: 'currency', currency: 'BRL' }).format(value);

const statusLabel = (p: Page, status: (typeof dealStatuses)[number]) =>
  ({ open: p.t.recDealOpen, won: p.t.recDealWon, lost: p.t.recDealLost })[status];

/**
 * A custom field's value: text as sent, a number in the page's language, yes/no, a calendar date
 * as the page's language writes it (02/01/2027, not 2027-01-02), or none.
 */
function valueText(p: Page, value: unknown): string {
  if (value === null || value === undefined || value === '') return p.t.recNone;
  if (typeof value === 'boolean') return value ? p.t.yes : p.t.no;
  if (typeof value === 'number') return new Intl.NumberFormat(p.lang).format(value);
  return dayText(value, p.lang) ?? String(value);
}

/** A time through `when`, or "not set". */
const at = (p: Page, iso: string | null) => (iso ? when(iso, p) : p.t.recNone);

const trashNote = (p: Page, r: Named) => (r.deletedAt === null ? '' : ` (${p.t.inTrash})`);

/**
 * Another record, by name with a link to its page; a key without that record's read scope sees
 * its number and the scope it lacks, never its name; a user (no page of its own) by name.
 */
function ref(p: Page, kind: Kind, id: number | null, found: Named | undefined): Html | string {
  if (id === null) return p.t.recNone;
  const { scope } = KINDS[kind];
  if (!p.can(scope)) return html`#${id} <span class="hint">(${p.t.recNeeds} ${scope})</span>`;
  const name = found ? `${found.name}${trashNote(p, found)}` : `#${id}`;
  return kind === 'users' ? name : html`<a href="/panel/${kind}/${id}">${name}</a>`;
}

type Fact = [label: string, value: Html | string];

/**
 * The webhook event that last wrote the record (created or updated it), linked to its page, to a
 * key that may read webhooks; none when no event did.
 */
function sourceFact(p: Page, source: WritingEvent | undefined): Fact[] {
  if (!source || !p.can('webhooks:read')) return [];
  const href = `/panel/webhooks/${source.webhookId}/events/${source.id}`;
  const received = new Date(source.receivedAt).toISOString();
  return [
    [
      p.t.recSourceEvent,
      html`<a href="${href}">${p.t.event} #${source.id}</a> · ${source.webhookName} · ${when(received, p)}`,
    ],
  ];
}

const facts = (rows: Fact[]) =>
  html`<dl class="facts record">${rows.map(([dt, dd]) => html`<dt>${dt}</dt><dd>${dd}</dd>`)}</dl>`;

/** The record's custom fields as keys and values, in their stored order. */
function customFields(p: Page, fields: Record<string, unknown>) {
  const entries = Object.entries(fields);
  return html`<h2>${p.t.recCustomFields}</h2>
${entries.length ? facts(entries.map(([k, v]) => [k, valueText(p, v)])) : html`<p>${p.t.recNoCustomFields}</p>`}`;
}

/** A list's second column: its header and each row's cell. */
type Column = { label: string; cell: (r: Listed) => Html | string };

const dueColumn = (p: Page): Column => ({ label: p.t.recDue, cell: (r) => at(p, r.when ?? null) });
const statusColumn = (p: Page): Column => ({
  label: p.t.recStatus,
  cell: (r) => (r.status ? statusLabel(p, r.status) : ''),
});

/** Others of `kind` linked to the record; a key without their scope is told which it lacks. */
function list(p: Page, kind: Exported, title: string, shown: Shown, filter: string, column?: Column) {
  const { scope } = KINDS[kind];
  if (!p.can(scope)) return html`<h2>${title}</h2><p class="hint">${p.t.noScope} ${scope}</p>`;
  if (!shown.rows.length) return html`<h2>${title}</h2><p>${p.t.recNoneLinked}</p>`;
  const w = importWords[p.lang];
  // Every row of the list, not only the first ones shown: the `/v1` export of the same filter.
  const exports = html`<p class="actions"><a class="button secondary" href="${exportHref(kind, filter)}" download>${w.export}</a> <a class="button secondary" href="${exportHref(kind, filter, true)}" download>${w.exportExcel}</a></p>`;
  const row = (r: Listed) =>
    html`<tr><td data-label="${p.t.name}">${ref(p, kind, r.id, r)}</td>${column ? html`<td data-label="${column.label}">${column.cell(r)}</td>` : ''}</tr>`;
  return html`<h2>${title}</h2>
<div class="scroll" tabindex="0" role="region" aria-label="${title}"><table>
<thead><tr><th scope="col">${p.t.name}</th>${column ? html`<th scope="col">${column.label}</th>` : ''}</tr></thead>
<tbody>${shown.rows.map(row)}</tbody></table></div>
${shown.more ? html`<p class="hint">${p.t.recFirstOnly} ${shown.rows.length}.</p>` : ''}${exports}`;
}

/** The page of one record: its kind and number, a trash banner, its facts and what follows. */
function recordPage(
  p: Page,
  kind: Kind,
  r: { id: number; name: string; deleted_at: string | null; created_at: string; updated_at: string },
  rows: Fact[],
  rest: Html,
) {
  const restoreBy = r.deleted_at && new Date(Date.parse(r.deleted_at) + TRASH_MS).toISOString();
  return layout(
    p,
    r.name,
    html`<p class="hint">${p.t[KINDS[kind].word]} #${r.id}</p>
${r.deleted_at ? html`<p class="banner disabled" role="note">${p.t.recTrashed} ${when(r.deleted_at, p)}. ${p.t.recRestoreUntil} ${when(restoreBy, p)}.</p>` : ''}
${facts([...rows, [p.t.recCreated, when(r.created_at, p)], [p.t.recUpdated, when(r.updated_at, p)]])}
${rest}`,
  );
}

const optional = (p: Page, value: string | null) => (value === null || value === '' ? p.t.recNone : value);

export const contactView = (
  p: Page,
  c: ContactRecord,
  refs: { company?: Named; owner?: Named; source?: WritingEvent | undefined },
  deals: Shown,
) =>
  recordPage(
    p,
    'contacts',
    c,
    [
      [p.t.recEmail, optional(p, c.email)],
      [p.t.recPhone, c.phone ? phoneText(c.phone) : p.t.recNone],
      [p.t.recCompany, ref(p, 'companies', c.company_id, refs.company)],
      [p.t.recOwner, ref(p, 'users', c.owner_id, refs.owner)],
      ...sourceFact(p, refs.source),
    ],
    html`${customFields(p, c.custom_fields)}${list(p, 'deals', p.t.recDeals, deals, `contact_id=${c.id}`, statusColumn(p))}`,
  );

export const dealView = (
  p: Page,
  d: DealRecord,
  refs: { contact?: Named; company?: Named; owner?: Named; source?: WritingEvent | undefined },
  tasks: Shown,
) =>
  recordPage(
    p,
    'deals',
    d,
    [
      [p.t.recStatus, statusLabel(p, d.status)],
      [p.t.recValue, d.value === null ? p.t.recNone : moneyText(p, d.value)],
      [p.t.recContact, ref(p, 'contacts', d.contact_id, refs.contact)],
      [p.t.recCompany, ref(p, 'companies', d.company_id, refs.company)],
      [p.t.recOwner, ref(p, 'users', d.owner_id, refs.owner)],
      ...sourceFact(p, refs.source),
    ],
    html`${customFields(p, d.custom_fields)}${list(p, 'tasks', p.t.recTasks, tasks, `deal_id=${d.id}`, dueColumn(p))}`,
  );

const people = (p: Page, ids: number[], found: Named[]) =>
  ids.length
    ? html`${ids.map(
        (id, i) =>
          html`${i ? ', ' : ''}${ref(
            p,
            'users',
            id,
            found.find((u) => u.id === id),
          )}`,
      )}`
    : p.t.recNone;

export const taskView = (
  p: Page,
  t: TaskRecord,
  refs: { deal?: Named; owners: Named[]; source?: WritingEvent | undefined },
) =>
  recordPage(
    p,
    'tasks',
    t,
    [
      [p.t.recDeal, ref(p, 'deals', t.deal_id, refs.deal)],
      [p.t.recCategory, t.category],
      [p.t.recDue, at(p, t.due_date)],
      [p.t.recCompleted, t.completed_at ? when(t.completed_at, p) : p.t.no],
      [p.t.recOwners, people(p, t.owner_ids, refs.owners)],
      [p.t.recDescription, optional(p, t.description)],
      ...sourceFact(p, refs.source),
    ],
    html``,
  );

export const companyView = (
  p: Page,
  co: CompanyRecord,
  refs: { owner?: Named; followers: Named[]; source?: WritingEvent | undefined },
  lists: { contacts: Shown; deals: Shown },
) =>
  recordPage(
    p,
    'companies',
    co,
    [
      [p.t.recCnpj, cnpjText(co.cnpj)],
      [p.t.recSegment, optional(p, co.segment)],
      [p.t.recObservations, optional(p, co.observations)],
      [p.t.recOwner, ref(p, 'users', co.owner_id, refs.owner)],
      [p.t.recFollowers, people(p, co.follower_ids, refs.followers)],
      [p.t.recOpenDeals, String(co.deal_count)],
      [p.t.recLeads, String(co.lead_count)],
      ...sourceFact(p, refs.source),
    ],
    html`${list(p, 'contacts', p.t.recContacts, lists.contacts, `company_id=${co.id}`)}${list(p, 'deals', p.t.recDeals, lists.deals, `company_id=${co.id}`, statusColumn(p))}`,
  );
