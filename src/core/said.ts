import { RESERVED_SEGMENTS } from './reserved-names';

// What the API says about a configuration, a sender's call or an event's run, as data: a stable
// `code` and the `params` it names (a key, a target, a type, a user id, an action's position),
// beside the English `message` made from them here. The panel words each code in pt-BR and English
// from the same params (src/panel/said-words.ts); nothing reads the English text back.

/** One value a message names: text, a number, a list of them, or a nested cause (code + params). */
export type Param = string | number | boolean | readonly (string | number)[] | Cause | readonly Cause[];
export type Params = { readonly [name: string]: Param };
/** The rule under another message: a `dropped` value's reason, a skipped action's cause. */
export type Cause = {
  code: string;
  params?: Params | undefined;
  message?: string | undefined;
  /** Where the cause is, when it is one field's (a failure's field errors). */
  path?: string | undefined;
};
/** A message as data: its code, its params and its English words. */
export type Said = { code: string; params?: Params | undefined; message: string };

/**
 * Reads the params of a message, which may come back from storage as any JSON (an event stored by
 * an older version, a key named `__proto__`): own properties only, each of the kind asked for, so
 * no lookup reaches a prototype and a missing param reads as empty.
 */
export class Args {
  constructor(readonly params: unknown) {}
  /** A param as stored, when it is the object's own. */
  own(name: string): unknown {
    const p = this.params;
    return p !== null && typeof p === 'object' && Object.hasOwn(p, name)
      ? (p as Record<string, unknown>)[name]
      : undefined;
  }
  text(name: string): string {
    const value = this.own(name);
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  }
  num(name: string): number {
    const value = this.own(name);
    return typeof value === 'number' ? value : Number.NaN;
  }
  has(name: string): boolean {
    return this.own(name) !== undefined;
  }
  list(name: string): string[] {
    const value = this.own(name);
    return Array.isArray(value) ? value.map(String) : [];
  }
  /** A nested cause, or undefined when there is none. */
  cause(name: string): CauseArgs | undefined {
    return causeArgs(this.own(name));
  }
  /** A list of nested causes (a failure's field errors), each with its path. */
  causes(name: string): CauseArgs[] {
    const value = this.own(name);
    return Array.isArray(value) ? value.flatMap((v) => causeArgs(v) ?? []) : [];
  }
}

type CauseArgs = { code: string; args: Args; message: string; path: string };

function causeArgs(value: unknown): CauseArgs | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const at = new Args(value);
  const code = at.text('code');
  return code
    ? { code, args: new Args(at.own('params')), message: at.text('message'), path: at.text('path') }
    : undefined;
}

const or = (list: string[]) => list.join(' or ');

/** What a value was expected to be (`Expected <words>.`), by the expectation's code. */
const expectations: Readonly<Record<string, (a: Args) => string>> = {
  finite_number: () => 'a finite number',
  safe_integer: (a) =>
    `a whole number of at most ${a.text('max')} (2^53 - 1): a larger one would be stored rounded; map it to a string field`,
  brazilian_number: () =>
    'a number written the Brazilian way: 89.900,00, R$ 120.000, 1.234 (one thousand two hundred thirty-four) or 1,5',
  number_text: () => 'a number, or a string of digits with at most one . or , before the decimals',
  no_thousands: () => 'no thousands separator: 1.500 and 1,500 are ambiguous',
  brazilian_boolean: () => 'a boolean: sim, não, s, n, true, false, 1 or 0',
  boolean: () => 'a boolean: true, false, "true", "false", 1, 0, "1" or "0"',
  big_integer_text: () => 'a string for a whole number over 2^53, which a JSON number cannot hold exactly',
  scalar: () => 'a string, number or boolean',
  max_characters: (a) => `at most ${a.text('max')} characters`,
  unicode: () => 'well-formed Unicode text',
  phone_text: () => 'a phone number as a string or a whole number',
  phone: () => 'a Brazilian or international (+CC) phone number',
  date_text: () => 'a date as a string',
  date: (a) =>
    `a real date as YYYY-MM-DD, an RFC 3339 date-time${a
      .list('formats')
      .map((f) => `, ${f}`)
      .join('')}`,
  date_time: () => 'an ISO 8601 date-time with an offset',
  email_text: () => 'an email address as a string',
  email: () => 'a valid email address',
  cnpj_text: () => 'a CNPJ as a string',
  cnpj: () => 'a valid CNPJ: 14 characters, bare or as XX.XXX.XXX/XXXX-XX, with valid check digits',
};

/** The expectation codes: a `dropped` or `invalid_type` value's `expected` param. */
export const expectationCodes = Object.keys(expectations);

/** The words of an expectation (`/v1`'s CNPJ rule says the same words as ingest's). */
export const expectedWords = (code: string, params: Params = {}): string =>
  Object.hasOwn(expectations, code) ? (expectations[code]?.(new Args(params)) ?? code) : code;

const reserved = (key: string) =>
  `"${key}" is a reserved name (as are ${RESERVED_SEGMENTS.filter((s) => s !== key).join(' and ')}): use another key.`;

/** Why an action did not run, by the reason's code. */
const reasons: Readonly<Record<string, (a: Args) => string>> = {
  condition_false: () => 'its condition does not hold',
  no_deal: () => 'no deal was created before it',
  no_cnpj: () => 'the event has no CNPJ',
  no_company_name: () => 'no company has this CNPJ, and the event has no company name to create one with',
  unusable: (a) => `its ${a.text('record')}'s ${a.text('field') || 'body'} is unusable (${causeWords(a)})`,
  breaks_rule: (a) => `its ${a.text('record')} breaks a rule (${a.text('detail')})`,
};

// A cause of this table's is worded here; another (a `/v1` schema's field error) keeps its message.
const causeWords = (a: Args): string => {
  const cause = a.cause('cause');
  return cause ? wordsOf(cause.code, cause.args) || cause.message : '';
};

/**
 * The English words of each code the webhook's rules say: the configuration's issues, the
 * values ingest leaves out or refuses, and what the flows did not do. The panel's table
 * (src/panel/said-words.ts) has pt-BR and English words for each of these codes.
 */
const english = {
  // The configuration (POST/PUT /v1/inbound-webhooks).
  key_declared_twice: (a) => `The key "${a.text('key')}" is declared twice.`,
  formats_need_date: () => 'Only a field of type date takes formats.',
  locale_needs_number: () => 'Only a field of type number or boolean takes a locale.',
  target_taken: (a) => `Another field already fills ${a.text('target')}.`,
  target_type: (a) => `${a.text('target')} takes a field of type ${or(a.list('types'))}.`,
  unknown_target: (a) => {
    const targets = a.list('targets');
    return `Expected one of ${targets.slice(0, -1).join(', ')} or ${targets.at(-1)}.`;
  },
  undeclared_field: (a) => `"${a.text('key')}" is not a declared field.`,
  when_type_mismatch: (a) =>
    `"${a.text('key')}" is a ${a.text('type')}: compare it with a ${a.text('kind')}.`,
  when_value_needed: () => 'equals, not_equals and contains need a value.',
  action_once: (a) => `Only one ${a.text('action')}.`,
  deal_order: (a) => `create_deal must come after ${a.text('action')}.`,
  deal_name_needed: () => 'Give a name template or map a field to deal.name.',
  task_needs_deal: () => 'A create_task needs a create_deal before it.',
  due_from_date: () => 'Expected received_at or a field of type date.',
  target_unmapped: (a) => `No field is mapped to ${a.text('target')}.`,
  not_dot_path: () => 'Expected a dot path such as `lead.phone`.',
  too_deep: (a) => `At most ${a.text('max')} levels: ingest refuses bodies nested deeper.`,
  format_token_twice: (a) => `${a.text('token')} appears twice.`,
  format_unknown_token: (a) =>
    `Unknown token "${a.text('token')}": use YYYY, MM, DD, HH, mm, ss and the separators / - . : , T or a space.`,
  format_part_missing: (a) => `A format needs YYYY, MM and DD; ${a.text('part')} is missing.`,
  format_part_needs: (a) => `${a.text('token')} needs ${a.text('needs')}.`,
  not_found: (a) => `No ${a.text('record')} ${a.text('id')} in this account.`,
  // A sender's body, at ingest (and `reserved_key` in a configuration's keys too).
  reserved_key: (a) =>
    a.has('more')
      ? `Left out: ${a.text('more')} more key${a.num('more') === 1 ? '' : 's'} named __proto__, prototype or constructor.`
      : `${a.has('left_out') ? 'Left out: ' : ''}${reserved(a.text('key'))}`,
  required: () => 'This field is required.',
  invalid_type: (a) => `Expected ${expectedWords(a.text('expected'), a.params as Params)}.`,
  dropped: (a) =>
    a.has('record')
      ? `Left out of the ${a.text('record')}: ${causeWords(a)}`
      : `Left out: Expected ${expectedWords(a.text('expected'), a.params as Params)}.`,
  decoded_as_windows_1252: (a) =>
    `Not valid UTF-8: read as Windows-1252 (Latin-1). Declare the charset in the Content-Type, or send UTF-8.${a.has('more') ? ` So were ${a.text('more')} more keys.` : ''}`,
  unsafe_integer: (a) => {
    const limit = `beyond ±${Number.MAX_SAFE_INTEGER}, the whole numbers a JSON number holds exactly`;
    const becomes = a.text('becomes') || 'an infinity, which JSON cannot hold';
    return a.text('outcome') === 'refused'
      ? `${a.text('sent')} is ${limit}: it would be stored as ${becomes}. Send a smaller number, or the digits as a string.`
      : `${a.text('sent')} is ${limit}, so it is read as ${becomes}; send such a number as a string.`;
  },
  body_trimmed: (a) => {
    const left = a.num('left');
    const shown = a.list('shown').join(', ') + (left > a.list('shown').length ? ', …' : '');
    return `The body was ${a.text('kib')} KiB: the event keeps its declared fields and ${a.text('kept_kib')} KiB of the rest; ${left} value${left === 1 ? ' was' : 's were'} left out (${shown}).`;
  },
  // The flows' run, in the queue.
  step_skipped: (a) => {
    const reason = a.cause('reason');
    return `${a.text('action')} did not run: ${reason ? reasonWords(reason.code, reason.args) : ''}.`;
  },
  no_due_date: (a) => `The event has no usable "${a.text('key')}": the task was created without a due date.`,
  contact_named_from: (a) =>
    `The event has no contact name and no existing contact matched: the new contact is named after its ${a.text('by')}, ${a.text('value')}.`,
  custom_fields_full: (a) => `it has ${a.text('max')} custom fields already, the most it may have.`,
  owner_unavailable: (a) =>
    `${a
      .list('user_ids')
      .map((id) => `No user ${id} in this account.`)
      .join(
        ' ',
      )} ${a.num('left') > 0 ? 'The round robin went on without them.' : `The ${a.text('action')} ran without an owner.`}`,
  // An event's failure, in the queue (its `error_code` and `error_params`).
  mapping_changed: (a) =>
    `The mapping changed and the event no longer fits it: ${a
      .causes('errors')
      .map((e) => `${e.path}: ${e.message}`)
      .join('; ')}`,
  contact_unnamed: () =>
    'contact.name: needed to create a contact, and the event has no name, email or phone to name it after (no existing contact matched).',
  record_unwritable: (a) => `A record could not be written: ${a.text('detail')}`,
  retrying: (a) => a.text('detail'),
  gave_up: (a) =>
    `Gave up after ${a.text('attempts')} attempt${a.num('attempts') === 1 ? '' : 's'}: ${a.text('last') || 'unknown error'}`,
} satisfies Record<string, (a: Args) => string>;

export type SaidCode = keyof typeof english;

/** The codes of an event's failure (its `error_code`), worded like the others. */
export const failureCodes = [
  'mapping_changed',
  'contact_unnamed',
  'record_unwritable',
  'retrying',
  'gave_up',
] as const satisfies readonly SaidCode[];
export type FailureCode = (typeof failureCodes)[number];

/** Every code above: the panel's table words each one, and a test holds it to that. */
export const saidCodes = Object.keys(english) as SaidCode[];
export const reasonCodes = Object.keys(reasons);

function wordsOf(code: string, args: Args): string {
  return Object.hasOwn(english, code) ? english[code as SaidCode](args) : '';
}

function reasonWords(code: string, args: Args): string {
  return Object.hasOwn(reasons, code) ? (reasons[code]?.(args) ?? code) : code;
}

/** A message as data, with its English words made from its params. */
export const said = (code: SaidCode, params: Params = {}): Said => ({
  code,
  params,
  message: english[code](new Args(params)),
});

/** Another message as the cause of one of these (a `/v1` schema's field error under `dropped`). */
export const causeOf = ({ code, params, message }: Said): Cause => ({
  code,
  ...(params && { params }),
  message,
});

/** A skipped action's reason as data, with its English words (a preview's `reason`). */
export const reason = (code: string, params: Params = {}): Cause & { message: string } => ({
  code,
  params,
  message: reasonWords(code, new Args(params)),
});
