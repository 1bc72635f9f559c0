import { html, raw } from 'hono/html';
import type { FieldError } from '../../core/errors';
import { actions, findAction } from '../../webhooks/actions';
import type { panelOptions } from '../../webhooks/actions/action';
import { MATCH_KEYS } from '../../webhooks/config/schema';
import { customFieldRecords, fixedTargets, whenOps } from '../../webhooks/rules/config';
import { fieldTypes } from '../../webhooks/rules/fields';
import {
  BLANK_FIELDS,
  BLANK_FLOWS,
  blankField,
  blankFlow,
  type Draft,
  type FieldDraft,
  type FlowDraft,
} from '../form';
import { shownFormat } from '../format-words';
import { kindLabel, matchKeyLabel, opLabel, targetLabel, typeLabel } from '../labels';
import { type Said, saidText } from '../said-words';
import { option, type Page, problems } from './layout';

// The configuration form of a webhook: its fields table and its flow blocks (src/panel/form.ts
// reads what they send back).

type Errors = Map<string, FieldError[]>;

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

function fieldRow(p: Page, f: FieldDraft, i: number, errors: Errors, examples: Map<string, string[]>) {
  const n = (c: string) => `fields.${i}.${c}`;
  const e = (c: string) => problems(p, errors, n(c));
  return html`<tr>
<td data-label="${p.t.key}"><input name="${n('key')}" value="${f.key}" aria-label="${p.t.key} ${i + 1}"${e('key').attrs}>${e('key').note}</td>
<td data-label="${p.t.type}"><select name="${n('type')}" class="js-type" aria-label="${p.t.type} ${i + 1}"${e('type').attrs}>${fieldTypes.map((t) => option(t, typeLabel(p, t), f.type === t))}</select>${e('type').note}</td>
<td data-label="${p.t.required}"><input type="checkbox" name="${n('required')}" value="on" aria-label="${p.t.required} ${i + 1}"${checked(f.required)}></td>
<td data-label="${p.t.target}"><input name="${n('target')}" value="${f.target}" list="targets" aria-label="${p.t.target} ${i + 1}" placeholder="${p.t.noTarget}"${e('target').attrs}>${e('target').note}</td>
<td data-label="${p.t.fieldLocale}"><input type="checkbox" name="${n('locale')}" value="pt-BR" aria-label="${p.t.fieldLocale} ${i + 1}" aria-describedby="locale-hint"${checked(f.locale === 'pt-BR')}${e('locale').attrs}>${e('locale').note}</td>
<td data-label="${p.t.formats}"><textarea name="${n('formats')}" rows="2" class="js-formats" aria-label="${p.t.formats} ${i + 1}" aria-describedby="formats-hint" placeholder="${shownFormat(p.lang, 'DD/MM/YYYY')}"${formatsShown(f) ? '' : raw(' hidden')}${e('formats').attrs}>
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
const moveButtons = (p: Page, i: number) =>
  html`<span class="move" hidden><button type="button" class="js-move" data-step="-1" aria-label="${p.t.moveUp} ${i + 1}">↑</button><button type="button" class="js-move" data-step="1" aria-label="${p.t.moveDown} ${i + 1}">↓</button></span>`;

function flowRow(p: Page & Omit<Said, 'lang'>, a: FlowDraft, i: number, owners: Owners, errors: Errors) {
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
<legend>${p.t.action} <span class="flow-n">${i + 1}</span></legend>
${moveButtons(p, i)}
<label>${p.t.position} <input type="number" name="${n('position')}" value="${i + 1}" min="1" class="position"></label>
<label>${p.t.action} <select name="${n('action')}" class="js-action"${e('action').attrs}>${option('', p.t.noAction, a.action === '')}${actions.map((m) => option(m.name, m.labels[p.lang], a.action === m.name))}</select></label>${e('action').note}
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

/** Blank rows after the last filled one, up to `wanted`: a form shown again does not grow. */
const topUp = <T>(rows: T[], blank: (row: T) => boolean, wanted: number, make: () => T): T[] => {
  let trailing = 0;
  while (trailing < rows.length && blank(rows[rows.length - 1 - trailing] as T)) trailing++;
  return [...rows, ...Array.from({ length: Math.max(0, wanted - trailing) }, make)];
};

/** The fields table, with the hints that explain its locale and formats columns. */
function fieldsTable(p: Page, fields: FieldDraft[], errors: Errors, examples: Map<string, string[]>) {
  return html`<h2>${p.t.fields}</h2>
<p class="hint">${p.t.fieldsHint}</p>
<p class="hint" id="locale-hint">${p.t.fieldLocaleHint}</p>
<p class="hint" id="formats-hint">${p.t.formatsHint}</p>
<datalist id="targets">${Object.keys(fixedTargets).map((t) => html`<option value="${t}" label="${targetLabel(p, t)}"></option>`)}${customFieldRecords.map((r) => html`<option value="${r}.custom_fields."></option>`)}</datalist>
<div class="scroll" tabindex="0" role="region" aria-label="${p.t.fields}"><table>
<thead><tr><th scope="col">${p.t.key}</th><th scope="col">${p.t.type}</th><th scope="col">${p.t.required}</th><th scope="col">${p.t.target}</th><th scope="col">${p.t.fieldLocale}</th><th scope="col">${p.t.formats}</th><th scope="col">${p.t.examples}</th></tr></thead>
<tbody>${fields.map((f, i) => fieldRow(p, f, i, errors, examples))}</tbody></table></div>`;
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
  const fields = topUp(draft.fields, (f) => f.key === '', BLANK_FIELDS, blankField);
  const flows = topUp(draft.flows, (a) => a.action === '', BLANK_FLOWS, blankFlow);
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
  return html`<form method="post" action="${action}" class="card" novalidate${guard}>${canSubmit ? '' : raw('<fieldset class="readonly" disabled>')}
${general ? html`<ul class="error" role="alert">${general.map((e) => html`<li>${saidText(said, e)}</li>`)}</ul>` : ''}
<label for="name">${p.t.name}</label>
${
  draft.name.includes('\n')
    ? html`<textarea id="name" name="name" rows="2" required${name.attrs}>
${draft.name}</textarea>`
    : html`<input id="name" name="name" value="${draft.name}" required${name.attrs}>`
}${name.note}
${was ? html`<input type="hidden" name="was.fields" value="${was.fields}"><input type="hidden" name="was.flows" value="${was.flows}">` : ''}
${fieldsTable(p, fields, errors, users.examples ?? new Map())}
<h2>${p.t.flows}</h2>
<p class="hint">${p.t.flowsHint}</p>
<p class="hint">${p.t.templateHint}</p>
<div class="flows">${flows.map((a, i) => flowRow(said, a, i, owners, errors))}</div>
${canSubmit ? html`<p><button type="submit">${submit}</button></p>` : raw('</fieldset>')}
</form>`;
}
