import { sha256Hex } from '../auth/secrets';
import type { FieldError } from '../core/errors';
import { findAction } from '../webhooks/actions';
import { panelOptions } from '../webhooks/actions/action';
import { MATCH_KEYS, MAX_ROUND_ROBIN } from '../webhooks/config/schema';
import { MAX_FIELDS, MAX_FLOWS } from '../webhooks/contract/schemas';
import type { Action, FieldMapping } from '../webhooks/rules/config';
import type { TargetGuess } from '../webhooks/rules/target-guess';
import { typedFormat } from './format-words';

/**
 * A row of the fields table as the form holds it: text, so a refused value is shown back as typed.
 * `formats` holds a date field's formats one per line (no format holds a line break).
 */
export type FieldDraft = {
  key: string;
  type: string;
  required: boolean;
  target: string;
  formats: string;
  /** `pt-BR` when ticked (a number or boolean read the Brazilian way), else ''. */
  locale: string;
};

export type FlowDraft = {
  action: string;
  matchOn: string[];
  name: string;
  category: string;
  description: string;
  owner: string;
  roundRobin: string[];
  whenField: string;
  whenOp: string;
  whenValue: string;
  /** The kind of `when.value`: `string`, `number`, `boolean`, or '' to read it by the field's type. */
  whenKind: string;
  dueFrom: string;
  dueDays: string;
  dueHours: string;
};

export type Draft = { name: string; fields: FieldDraft[]; flows: FlowDraft[] };

export const blankField = (): FieldDraft => ({
  key: '',
  type: 'string',
  required: false,
  target: '',
  formats: '',
  locale: '',
});

export const blankFlow = (): FlowDraft => ({
  action: '',
  matchOn: [],
  name: '',
  category: '',
  description: '',
  owner: '',
  roundRobin: [],
  whenField: '',
  whenOp: 'exists',
  whenValue: '',
  whenKind: '',
  dueFrom: '',
  dueDays: '',
  dueHours: '',
});

/** A row the form's "Add a field" or "Add an action" button asks for. */
export type RowKind = 'field' | 'flow';

/** The row a submitted form's add button asked for (the form sent without JS), if any. */
export function addedRow(form: Form): RowKind | undefined {
  const value = text(form, 'add');
  return value === 'field' || value === 'flow' ? value : undefined;
}

/** The draft with one blank row more of `kind`, while the contract takes more; nothing typed is lost. */
export function withRow(draft: Draft, kind: RowKind): Draft {
  if (kind === 'field')
    return draft.fields.length < MAX_FIELDS ? { ...draft, fields: [...draft.fields, blankField()] } : draft;
  return draft.flows.length < MAX_FLOWS ? { ...draft, flows: [...draft.flows, blankFlow()] } : draft;
}

/** A fields table row from a suggested mapping (webhooks/rules/target-guess.ts). */
export const fieldDraftOf = (guess: TargetGuess): FieldDraft => ({
  ...blankField(),
  key: guess.key,
  type: guess.type,
  target: guess.target ?? '',
  formats: guess.formats ?? '',
  locale: guess.locale ?? '',
});

// A browser sends every line break of a textarea as CRLF: the configuration keeps LF.
const lines = (value: string): string => value.replace(/\r\n?/g, '\n');

/** The options the panel shows for an action, in the order of its controls (its module's `panel`). */
const optionsOf = (action: string) => panelOptions.filter((o) => findAction(action)?.panel[o] !== undefined);

type Stored = Partial<Record<string, unknown>>;
const textOf = (value: unknown) => lines(typeof value === 'string' ? value : '');

/**
 * How each option the panel knows is shown in a flow block and read back from it: from the stored
 * action, whether the block fills it, and into the body `/v1` takes.
 */
const codecs: Record<
  (typeof panelOptions)[number],
  {
    read: (a: Stored) => Partial<FlowDraft>;
    filled: (d: FlowDraft) => boolean;
    write: (d: FlowDraft) => object;
  }
> = {
  match_on: {
    read: (a) => ({ matchOn: Array.isArray(a.match_on) ? a.match_on : [] }),
    filled: (d) => d.matchOn.length > 0,
    write: (d) => ({ match_on: d.matchOn }),
  },
  name: {
    read: (a) => ({ name: textOf(a.name) }),
    filled: (d) => d.name !== '',
    write: (d) => ({ name: d.name }),
  },
  category: {
    read: (a) => ({ category: textOf(a.category) }),
    filled: (d) => d.category !== '',
    write: (d) => ({ category: d.category }),
  },
  description: {
    read: (a) => ({ description: textOf(a.description) }),
    filled: (d) => d.description !== '',
    write: (d) => ({ description: d.description }),
  },
  due: {
    read: (a) => {
      const due = a.due as { from: string; days: number; hours: number } | undefined;
      return due ? { dueFrom: lines(due.from), dueDays: String(due.days), dueHours: String(due.hours) } : {};
    },
    // Days or hours without a start are sent too, for the schema to ask for `due.from`.
    filled: (d) => Boolean(d.dueFrom || d.dueDays || d.dueHours),
    write: (d) => ({
      due: { from: d.dueFrom, days: integer(d.dueDays || '0'), hours: integer(d.dueHours || '0') },
    }),
  },
};

/**
 * The stored configuration as form rows, its texts as a browser sends them back: the API may
 * store CRLF or a lone CR, which no form returns as such, so line breaks are shown as LF. The
 * digests of the halves are taken from this draft, so an unchanged save still matches them.
 */
export function draftOf(row: { name: string; fields: FieldMapping[]; flows: Action[] }): Draft {
  return {
    name: lines(row.name),
    fields: row.fields.map((f) => ({
      key: lines(f.key),
      type: f.type,
      required: f.required,
      target: lines(f.target ?? ''),
      formats: lines(f.formats?.join('\n') ?? ''),
      locale: f.locale ?? '',
    })),
    flows: row.flows.map((a) => ({
      ...blankFlow(),
      action: a.action,
      ...optionsOf(a.action).reduce((draft, o) => Object.assign(draft, codecs[o].read(a)), {}),
      owner: a.owner && 'user_id' in a.owner ? String(a.owner.user_id) : '',
      roundRobin: a.owner && 'round_robin' in a.owner ? a.owner.round_robin.map(String) : [],
      whenField: lines(a.when?.field ?? ''),
      whenOp: a.when?.op ?? 'exists',
      whenValue: a.when?.value === undefined ? '' : lines(String(a.when.value)),
      whenKind: a.when?.value === undefined ? '' : typeof a.when.value,
    })),
  };
}

type Form = Record<string, string | File | (string | File)[]>;

const text = (form: Form, name: string): string => {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? lines(first) : '';
};

const texts = (form: Form, name: string): string[] => {
  const value = form[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is string => typeof v === 'string' && v !== '',
  );
};

/**
 * A round robin from its ticked boxes. A rotation that names a user twice (stored through the API)
 * cannot be shown as boxes: the form carries it whole (`round_robin.kept`), and it stays as it
 * was while the same users are ticked; a changed choice is the ticked users, once each.
 */
function rotationOf(ticked: string[], kept: string): string[] {
  // No rotation the contract takes is longer: a longer one was never shown, so is not kept.
  const stored = kept === '' || kept.length > 20 * MAX_ROUND_ROBIN ? [] : kept.split(',');
  if (stored.length > MAX_ROUND_ROBIN) return ticked;
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
  return stored.length && same([...new Set(stored)], [...new Set(ticked)]) ? stored : ticked;
}

/** The rows of a submitted form (parsed with `all: true`), numbered `fields.0.key`, `flows.0.action`... */
export function draftFromForm(form: Form): Draft {
  const rows = (prefix: string) => {
    const indexes = new Set<number>();
    for (const name of Object.keys(form)) {
      const m = new RegExp(`^${prefix}\\.(\\d{1,3})\\.`).exec(name);
      if (m) indexes.add(Number(m[1]));
    }
    return [...indexes].sort((a, b) => a - b);
  };
  return {
    name: text(form, 'name'),
    fields: rows('fields').map((i) => ({
      key: text(form, `fields.${i}.key`).trim(),
      type: text(form, `fields.${i}.type`),
      required: text(form, `fields.${i}.required`) !== '',
      target: text(form, `fields.${i}.target`),
      // Typed as the page shows it (DD/MM/AAAA in Portuguese), stored as DD/MM/YYYY.
      formats: typedFormat(text(form, `fields.${i}.formats`)),
      locale: text(form, `fields.${i}.locale`),
    })),
    flows: rows('flows')
      .map((i) => {
        const at = (name: string) => text(form, `flows.${i}.${name}`);
        // The position a block was given moves it; without a usable one it keeps its place.
        const position = Number.parseFloat(at('position'));
        return {
          i,
          position: Number.isFinite(position) ? position : i + 1,
          flow: {
            action: at('action'),
            matchOn: texts(form, `flows.${i}.match_on`),
            name: at('name'),
            category: at('category'),
            description: at('description'),
            owner: at('owner'),
            roundRobin: rotationOf(
              texts(form, `flows.${i}.round_robin`),
              text(form, `flows.${i}.round_robin.kept`),
            ),
            whenField: at('when.field').trim(),
            whenOp: at('when.op'),
            whenValue: at('when.value'),
            whenKind: at('when.kind'),
            dueFrom: at('due.from').trim(),
            dueDays: at('due.days').trim(),
            dueHours: at('due.hours').trim(),
          },
        };
      })
      .sort((a, b) => a.position - b.position || a.i - b.i)
      .map(({ flow }) => flow),
  };
}

/** An integer as a number; anything else as typed, for the schema to refuse at its path. */
const integer = (value: string): number | string => (/^-?\d{1,15}$/.test(value) ? Number(value) : value);

/**
 * The `when` value the row stands for, or undefined for none. A kind chosen in the form is kept
 * exactly (`null`, which the schema refuses at `when.value`, for a text that is not of that kind);
 * without one, a value typed in is read by its field's type (see `configIssues`), and `exists`
 * takes none.
 */
function whenValueOf(a: FlowDraft, type: string | undefined): string | number | boolean | null | undefined {
  const value = a.whenValue;
  const kind = a.whenKind || (a.whenOp === 'exists' || value === '' ? 'none' : type);
  if (kind === 'none') return undefined;
  if (kind === 'number')
    return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : a.whenKind ? null : value;
  if (kind === 'boolean')
    return value === 'true' || value === 'false' ? value === 'true' : a.whenKind ? null : value;
  return value;
}

/** A date field's formats, one per line; blank lines are left out. */
const formatsOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');

/** A flow block in the shape `/v1` takes: its action's options (those filled in, or required). */
function actionOf(a: FlowDraft, types: Map<string, string>) {
  const ids = a.roundRobin.map(integer);
  const value = a.whenField ? whenValueOf(a, types.get(a.whenField)) : undefined;
  const panel = findAction(a.action)?.panel ?? {};
  const options = optionsOf(a.action).flatMap((o) =>
    panel[o] === 'required' || codecs[o].filled(a) ? [codecs[o].write(a)] : [],
  );
  return {
    action: a.action,
    ...Object.assign({}, ...options),
    ...(ids.length
      ? { owner: { round_robin: ids } }
      : a.owner
        ? { owner: { user_id: integer(a.owner) } }
        : {}),
    ...(a.whenField && { when: { field: a.whenField, op: a.whenOp, ...(value !== undefined && { value }) } }),
  };
}

/**
 * The body the form stands for, in the shape `/v1` takes, and for each of its rows the form row
 * it came from: blank rows are left out, so error paths are numbered differently from the form.
 */
export function bodyOf(draft: Draft) {
  const fieldRows = draft.fields.flatMap((f, i) => (f.key ? [i] : []));
  const flowRows = draft.flows.flatMap((a, i) => (a.action ? [i] : []));
  const types = new Map(draft.fields.map((f) => [f.key, f.type]));
  const fields = fieldRows.map((i) => {
    const f = draft.fields[i] ?? blankField();
    const formats = formatsOf(f.formats);
    return {
      key: f.key,
      type: f.type,
      required: f.required,
      ...(f.target && { target: f.target }),
      ...(formats.length > 0 && { formats }),
      ...(f.locale && { locale: f.locale }),
    };
  });
  const flows = flowRows.map((i) => actionOf(draft.flows[i] ?? blankFlow(), types));
  return { body: { name: draft.name, fields, flows }, fieldRows, flowRows };
}

/**
 * What the edit form sends back to tell which halves of the configuration it left as they were:
 * a digest of each, as the form shows them. A half whose digest still matches is not written, so
 * a save changes only what the person changed (an owner since put in the trash stays).
 */
export async function halvesDigest(body: { fields: unknown; flows: unknown }) {
  return {
    fields: await sha256Hex(JSON.stringify(body.fields)),
    flows: await sha256Hex(JSON.stringify(body.flows)),
  };
}

/** The body without the halves the form says were not changed. */
export async function changedOnly<T extends { fields?: unknown; flows?: unknown }>(
  body: T,
  form: Form,
): Promise<Partial<T>> {
  const now = await halvesDigest({ fields: body.fields, flows: body.flows });
  const out: Partial<T> = { ...body };
  if (text(form, 'was.fields') === now.fields) delete out.fields;
  if (text(form, 'was.flows') === now.flows) delete out.flows;
  return out;
}

/** How many values one control may send: a round robin's users, match_on's keys, else one. */
const valuesAllowed = (name: string): number =>
  name.endsWith('.round_robin') ? MAX_ROUND_ROBIN : name.endsWith('.match_on') ? MATCH_KEYS.length : 1;

/**
 * Whether a submitted form holds more filled rows than the contract takes, more rows than any
 * page of the panel offers, or more values for one control than it can take (a control repeated
 * 40,000 times): checked on the names and counts alone, before the rows are read or shown again.
 */
export function tooManyRows(form: Form): boolean {
  for (const [name, value] of Object.entries(form)) {
    if (Array.isArray(value) && value.length > valuesAllowed(name)) return true;
  }
  const rows = (list: string, filledBy: string) => {
    const all = new Set<number>();
    let filled = 0;
    const pattern = new RegExp(`^${list}\\.(\\d{1,3})\\.(.+)$`);
    for (const name of Object.keys(form)) {
      const m = pattern.exec(name);
      if (!m) continue;
      all.add(Number(m[1]));
      if (m[2] === filledBy && text(form, name).trim() !== '') filled++;
    }
    return { all: all.size, filled };
  };
  const fields = rows('fields', 'key');
  const flows = rows('flows', 'action');
  return (
    fields.filled > MAX_FIELDS ||
    flows.filled > MAX_FLOWS ||
    fields.all > 2 * MAX_FIELDS ||
    flows.all > 2 * MAX_FLOWS
  );
}

/**
 * Field errors by the name of the form control they belong to (`fields.2.key`); those that
 * belong to none under `''`. Paths name body rows, which `rows` maps back to form rows.
 */
export function errorsByControl(
  errors: FieldError[],
  rows: { fieldRows: number[]; flowRows: number[] },
): Map<string, FieldError[]> {
  const out = new Map<string, FieldError[]>();
  const add = (control: string, error: FieldError) => out.set(control, [...(out.get(control) ?? []), error]);
  for (const error of errors) {
    const { path } = error;
    const parts = path.split('.');
    const [list, index, ...rest] = parts;
    const map = list === 'fields' ? rows.fieldRows : list === 'flows' ? rows.flowRows : undefined;
    const row = map?.[Number(index)];
    if (map === undefined || row === undefined) {
      add(path === 'name' ? 'name' : '', error);
      continue;
    }
    add(`${list}.${row}.${controlOf(list === 'fields', rest)}`, error);
  }
  return out;
}

/** The control of a row that an error path inside it points at. */
function controlOf(isField: boolean, rest: string[]): string {
  const [first = '', second] = rest;
  if (isField)
    return ['key', 'type', 'required', 'target', 'formats', 'locale'].includes(first) ? first : 'key';
  if (first === 'owner') return second === 'round_robin' ? 'round_robin' : 'owner';
  if (first === 'when') return `when.${second ?? 'field'}`;
  if (first === 'due') return `due.${second ?? 'from'}`;
  return (panelOptions as readonly string[]).includes(first) ? first : 'action';
}
