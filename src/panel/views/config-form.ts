import { html, raw } from 'hono/html';
import type { FieldError } from '../../core/errors';
import { actions, findAction } from '../../webhooks/actions';
import type { panelOptions } from '../../webhooks/actions/action';
import { MATCH_KEYS } from '../../webhooks/config/schema';
import { MAX_FIELDS, MAX_FLOWS } from '../../webhooks/contract/schemas';
import { customFieldRecords, fixedTargets, whenOps } from '../../webhooks/rules/config';
import { fieldTypes } from '../../webhooks/rules/fields';
import { blankField, blankFlow, type Draft, type FieldDraft, type FlowDraft, type RowKind } from '../form';
import { shownFormat } from '../format-words';
import { kindLabel, matchKeyLabel, opLabel, targetLabel, typeLabel } from '../labels';
import { type Said, saidText } from '../said-words';
import { option, type Page, problems } from './layout';

// The configuration form of a webhook: its fields table and its flow blocks (src/panel/form.ts
// reads what they send back).

type Errors = Map<string, FieldError[]>;

/**
 * Where a row is: the index its controls are named by and its number as the person reads it. The
 * add buttons' templates hold `__i__` and `__n__`, which panel.js fills in for the row it adds.
 */
type At = { i: string; n: string; focus?: boolean };
const at = (i: number, focus = false): At => ({ i: String(i), n: String(i + 1), focus });
const TEMPLATE: At = { i: '__i__', n: '__n__' };
const autofocus = (on: boolean | undefined) => (on ? raw(' autofocus') : '');

const checked = (on: boolean) => (on ? raw(' checked') : '');

/** A field's example values from the latest test events, or a dash. */
const examplesCell = (p: Page, list: string[] | undefined) =>
  list?.length
    ? html`<ul class="examples">${list.map((v) => html`<li><code>${v}</code></li>`)}</ul>`
    : html`<span class="hint">${p.t.none}</span>`;

/**
 * The date formats box only on a date field (or one that holds formats, which the save refuses
 * beside it): hidden, never disabled, so a save sends it as it was. panel.js shows it once the
 * row's type is changed to date; without JS it shows after the save.
 */
const formatsShown = (f: FieldDraft) => f.type === 'date' || f.formats !== '';

function fieldRow(
  p: Page,
  f: FieldDraft,
  { i, n: nth, focus }: At,
  errors: Errors,
  examples: Map<string, string[]>,
) {
  const n = (c: string) => `fields.${i}.${c}`;
  const e = (c: string) => problems(p, errors, n(c));
  return html`<tr>
<td data-label="${p.t.key}"><input name="${n('key')}" value="${f.key}" aria-label="${p.t.key} ${nth}"${autofocus(focus)}${e('key').attrs}>${e('key').note}</td>
<td data-label="${p.t.type}"><select name="${n('type')}" class="js-type" aria-label="${p.t.type} ${nth}"${e('type').attrs}>${fieldTypes.map((t) => option(t, typeLabel(p, t), f.type === t))}</select>${e('type').note}</td>
<td data-label="${p.t.required}"><input type="checkbox" name="${n('required')}" value="on" aria-label="${p.t.required} ${nth}"${checked(f.required)}></td>
<td data-label="${p.t.target}"><input name="${n('target')}" value="${f.target}" list="targets" aria-label="${p.t.target} ${nth}" placeholder="${p.t.noTarget}"${e('target').attrs}>${e('target').note}</td>
<td data-label="${p.t.fieldLocale}"><input type="checkbox" name="${n('locale')}" value="pt-BR" aria-label="${p.t.fieldLocale} ${nth}" aria-describedby="locale-hint"${checked(f.locale === 'pt-BR')}${e('locale').attrs}>${e('locale').note}</td>
<td data-label="${p.t.formats}"><textarea name="${n('formats')}" rows="2" class="js-formats" aria-label="${p.t.formats} ${nth}" aria-describedby="formats-hint" placeholder="${shownFormat(p.lang, 'DD/MM/YYYY')}"${formatsShown(f) ? '' : raw(' hidden')}${e('formats').attrs}>
${shownFormat(p.lang, f.formats)}</textarea>${e('formats').note}</td>
<td data-label="${p.t.examples}">${f.key ? examplesCell(p, examples.get(f.key)) : ''}</td>
</tr>`;
}

/** A user of the account: live, or (`trashed`) in the trash, which a stored flow may still name. */
export type UserOption = { id: number; name: string; trashed?: boolean };

/** The users a flow block offers, by id: the live ones, then those only its own values name. */
type Owners = { live: UserOption[]; named: Map<string, UserOption> };

/** How an owner is shown: a user in the trash says so; an id that is no user any more, too. */
const ownerLabel = (p: Page, owners: Owners, id: string) => {
  const user = owners.named.get(id);
  if (!user) return `${p.t.unknownUser} ${id}`;
  return user.trashed ? `${user.name} (${p.t.inTrash})` : user.name;
};

/** The chosen ids first, in their order and once each, then the other live users. */
const ownerIds = (owners: Owners, chosen: string[]) => [
  ...new Set(chosen),
  ...owners.live.map((u) => String(u.id)).filter((id) => !chosen.includes(id)),
];

/**
 * A round robin as one box per user: the chosen ones ticked, first, in their order (a chosen user
 * in the trash, or gone, stays ticked, so a save keeps them). A stored rotation that names a user
 * twice is carried whole in `round_robin.kept`, and the page says so (see form.ts's rotationOf).
 */
function roundRobinBoxes(p: Page, a: FlowDraft, n: (c: string) => string, owners: Owners, errors: Errors) {
  const e = problems(p, errors, n('round_robin'));
  const twice = [...new Set(a.roundRobin.filter((id, i) => a.roundRobin.indexOf(id) !== i))];
  return html`<fieldset class="inline-group round-robin"${e.attrs}><legend>${p.t.roundRobin}</legend>
<div class="checks">${ownerIds(owners, a.roundRobin).map(
    (id) =>
      html`<label><input type="checkbox" name="${n('round_robin')}" value="${id}"${checked(a.roundRobin.includes(id))}> ${ownerLabel(p, owners, id)}</label>`,
  )}</div>
${
  twice.length
    ? html`<input type="hidden" name="${n('round_robin.kept')}" value="${a.roundRobin.join(',')}"><p class="hint" role="note">${p.t.roundRobinTwice} ${twice.map((id) => ownerLabel(p, owners, id)).join(', ')}.</p>`
    : ''
}${e.note}</fieldset>`;
}

// A textarea's first line break is eaten by the HTML parser: each one starts with one to spare.

/** A text box, or a text area once its value holds a line break (an input would drop it). */
const textBox = (name: string, value: string, attrs: unknown) =>
  value.includes('\n')
    ? html`<textarea name="${name}" rows="2"${attrs}>
${value}</textarea>`
    : html`<input type="text" name="${name}" value="${value}"${attrs}>`;

type Option = (typeof panelOptions)[number];

/** The actions that take an option: their names (for the script) and labels (for the person). */
const takers = (p: Page, o: Option) => {
  const modules = actions.filter((m) => m.panel[o] !== undefined);
  return {
    names: modules.map((m) => m.name).join(' '),
    labels: modules.map((m) => m.labels[p.lang]).join(', '),
  };
};

/**
 * The wrapper of one option's controls. A block whose action is chosen shows only its action's
 * options; the others are hidden, never disabled: they are still sent, and form.ts writes only the
 * chosen action's. A blank block shows them all, each naming the actions that take it, until the
 * script (assets.ts) hides them and shows the chosen action's.
 */
const optionBox = (p: Page, a: FlowDraft, o: Option, body: unknown) => {
  const hidden = a.action !== '' && findAction(a.action)?.panel[o] === undefined;
  return html`<div class="option" data-actions="${takers(p, o).names}"${hidden ? raw(' hidden') : ''}>${body}</div>`;
};

/** The up and down buttons of a flow block: shown by the script, which moves blocks. */
const moveButtons = (p: Page, nth: string) =>
  html`<span class="move" hidden><button type="button" class="js-move" data-step="-1" aria-label="${p.t.moveUp} ${nth}">↑</button><button type="button" class="js-move" data-step="1" aria-label="${p.t.moveDown} ${nth}">↓</button></span>`;

function flowRow(
  p: Page & Omit<Said, 'lang'>,
  a: FlowDraft,
  { i, n: nth, focus }: At,
  owners: Owners,
  errors: Errors,
) {
  const n = (c: string) => `flows.${i}.${c}`;
  const e = (c: string) => problems(p, errors, n(c));
  const input = (c: string, label: string, value: string) =>
    html`<label>${label} ${textBox(n(c), value, e(c).attrs)}</label>${e(c).note}`;
  const labelled = (o: Option, label: string) => (a.action ? label : `${label} (${takers(p, o).labels})`);
  // Ticked ones first, in their order (and as often) as stored: the order is kept on save.
  const matchOn = [...a.matchOn, ...MATCH_KEYS.filter((m) => !a.matchOn.includes(m))];
  const kinds: [string, string][] = [
    ['', p.t.kindAuto],
    ...(['string', 'number', 'boolean'] as const).map((k): [string, string] => [k, kindLabel(p, k)]),
  ];
  return html`<fieldset class="flow">
<legend>${p.t.action} <span class="flow-n">${nth}</span></legend>
${moveButtons(p, nth)}
<label>${p.t.position} <input type="number" name="${n('position')}" value="${nth}" min="1" class="position"></label>
<label>${p.t.action} <select name="${n('action')}" class="js-action"${autofocus(focus)}${e('action').attrs}>${option('', p.t.noAction, a.action === '')}${actions.map((m) => option(m.name, m.labels[p.lang], a.action === m.name))}</select></label>${e('action').note}
${optionBox(
  p,
  a,
  'match_on',
  html`<fieldset class="inline-group"><legend>${labelled('match_on', p.t.matchOn)}</legend>
${matchOn.map((m, j) => html`<label><input type="checkbox" name="${n('match_on')}" value="${m}"${checked(j < a.matchOn.length)}> ${matchKeyLabel(p, m)}</label>`)}
${e('match_on').note}</fieldset>`,
)}
${optionBox(p, a, 'name', input('name', labelled('name', p.t.taskName), a.name))}
${optionBox(p, a, 'category', input('category', labelled('category', p.t.category), a.category))}
${optionBox(
  p,
  a,
  'description',
  html`<label>${labelled('description', p.t.description)} <textarea name="${n('description')}" rows="2"${e('description').attrs}>
${a.description}</textarea></label>${e('description').note}`,
)}
<label>${p.t.owner} <select name="${n('owner')}"${e('owner').attrs}>${option('', p.t.noOwner, a.owner === '')}${ownerIds(owners, a.owner ? [a.owner] : []).map((id) => option(id, ownerLabel(p, owners, id), id === a.owner))}</select></label>${e('owner').note}
${roundRobinBoxes(p, a, n, owners, errors)}
<fieldset class="inline-group"><legend>${p.t.when}</legend>
${input('when.field', p.t.whenField, a.whenField)}
<label>${p.t.whenOp} <select name="${n('when.op')}"${e('when.op').attrs}>${whenOps.map((o) => option(o, opLabel(p, o), a.whenOp === o))}</select></label>
${input('when.value', p.t.whenValue, a.whenValue)}
<label>${p.t.whenKind} <select name="${n('when.kind')}"${e('when.kind').attrs}>${kinds.map(([k, label]) => option(k, label, a.whenKind === k))}</select></label>
</fieldset>
${optionBox(
  p,
  a,
  'due',
  html`<fieldset class="inline-group"><legend>${labelled('due', p.t.due)}</legend>
${input('due.from', p.t.due, a.dueFrom)}
${input('due.days', p.t.days, a.dueDays)}
${input('due.hours', p.t.hours, a.dueHours)}
</fieldset>`,
)}
</fieldset>`;
}

/**
 * The button under a list that adds a row to it. Without JS it sends the form back for the same
 * form with one more row (nothing is saved, nothing typed is lost); panel.js adds the row from the
 * list's template instead. Shown while the list may grow, and only to a key that may save.
 */
function addRow(p: Page, kind: RowKind, shown: number, canSubmit: boolean) {
  const max = kind === 'field' ? MAX_FIELDS : MAX_FLOWS;
  if (!canSubmit || shown >= max) return '';
  return html`<p><button type="submit" name="add" value="${kind}" class="secondary js-add" data-template="${kind}-template" data-list="${kind}-list" data-max="${max}">${kind === 'field' ? p.t.addField : p.t.addAction}</button></p>`;
}

/** The fields table, with the hints that explain its locale and formats columns. */
function fieldsTable(
  p: Page,
  fields: FieldDraft[],
  errors: Errors,
  examples: Map<string, string[]>,
  focus: boolean,
) {
  return html`<h2>${p.t.fields}</h2>
<p class="hint">${p.t.fieldsHint}</p>
<p class="hint" id="locale-hint">${p.t.fieldLocaleHint}</p>
<p class="hint" id="formats-hint">${p.t.formatsHint}</p>
<datalist id="targets">${Object.keys(fixedTargets).map((t) => html`<option value="${t}" label="${targetLabel(p, t)}"></option>`)}${customFieldRecords.map((r) => html`<option value="${r}.custom_fields."></option>`)}</datalist>
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.fields}"><table class="stacked">
<thead><tr><th scope="col">${p.t.key}</th><th scope="col">${p.t.type}</th><th scope="col">${p.t.required}</th><th scope="col">${p.t.target}</th><th scope="col">${p.t.fieldLocale}</th><th scope="col">${p.t.formats}</th><th scope="col">${p.t.examples}</th></tr></thead>
<tbody id="field-list">${fields.map((f, i) => fieldRow(p, f, at(i, focus && i === fields.length - 1), errors, examples))}</tbody></table></div>
<template id="field-template">${fieldRow(p, blankField(), TEMPLATE, new Map(), examples)}</template>`;
}

/** The account's users a form offers, and the example values beside its fields. */
export type FormContext = {
  /** The live users to offer as owners (the first 500 by name). */
  live: UserOption[];
  /** The users the stored flows name, live or in the trash. */
  named: UserOption[];
  /** Example values by field key, from the latest test events (the edit page). */
  examples?: Map<string, string[]>;
  /** The form shows what is not stored yet (rows added from test events): leaving it asks. */
  unsaved?: boolean;
  /** The list a row was just added to (the add button, without JS): its new row takes the focus. */
  added?: RowKind;
};

/**
 * The configuration form: name, fields table and flows, each error next to its control.
 * `was` (the edit page) holds the digests of the stored halves, for a save to leave them alone.
 */
export function configForm(
  p: Page,
  action: string,
  draft: Draft,
  users: FormContext,
  errors: Errors,
  submit: string,
  was?: { fields: string; flows: string },
) {
  // An empty table shows one row to fill in; the add buttons add more.
  const fields = draft.fields.length ? draft.fields : [blankField()];
  const { flows } = draft;
  const owners: Owners = {
    live: users.live,
    named: new Map([...users.named, ...users.live].map((u) => [String(u.id), u])),
  };
  const general = errors.get('');
  const name = problems(p, errors, 'name');
  // A refused owner is named as the page knows them ("Ana Souza está na lixeira"), not by id.
  const named = [...owners.named.values()];
  const said = {
    ...p,
    users: new Map(named.map((u) => [u.id, u.name])),
    trashed: new Set(named.filter((u) => u.trashed).map((u) => u.id)),
  };
  const canSubmit = p.can(action === '/panel/webhooks' ? 'webhooks:insert' : 'webhooks:update');
  // A key that may not save sees the configuration with every control disabled, and no save button.
  // panel.js asks before the page is left with changes not saved; a refused save's draft is one.
  const guard = canSubmit ? raw(` data-guard="${errors.size || users.unsaved ? 'unsaved' : 'saved'}"`) : '';
  // Enter in a box submits with the form's first submit button: the save, not an add button.
  const enter = canSubmit
    ? html`<button type="submit" class="visually-hidden" tabindex="-1" aria-hidden="true">${submit}</button>`
    : raw('<fieldset class="readonly" disabled>');
  return html`<form method="post" action="${action}" class="card" novalidate${guard}>${enter}
${general ? html`<ul class="error" role="alert">${general.map((e) => html`<li>${saidText(said, e)}</li>`)}</ul>` : ''}
<label for="name">${p.t.name}</label>
${
  draft.name.includes('\n')
    ? html`<textarea id="name" name="name" rows="2" required${name.attrs}>
${draft.name}</textarea>`
    : html`<input id="name" name="name" value="${draft.name}" required${name.attrs}>`
}${name.note}
${was ? html`<input type="hidden" name="was.fields" value="${was.fields}"><input type="hidden" name="was.flows" value="${was.flows}">` : ''}
${fieldsTable(p, fields, errors, users.examples ?? new Map(), users.added === 'field')}
${addRow(p, 'field', fields.length, canSubmit)}
<h2>${p.t.flows}</h2>
<p class="hint">${p.t.flowsHint}</p>
<p class="hint">${p.t.templateHint}</p>
<div class="flows" id="flow-list">${flows.map((a, i) => flowRow(said, a, at(i, users.added === 'flow' && i === flows.length - 1), owners, errors))}</div>
${canSubmit ? html`<template id="flow-template">${flowRow(said, blankFlow(), TEMPLATE, owners, new Map())}</template>` : ''}
${addRow(p, 'flow', flows.length, canSubmit)}
${canSubmit ? html`<p><button type="submit">${submit}</button></p>` : raw('</fieldset>')}
</form>`;
}
