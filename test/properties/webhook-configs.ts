import fc, { type Arbitrary } from 'fast-check';
import { fixedTargets } from '../../src/webhooks/rules/config';
import { compileFormat, fieldTypes } from '../../src/webhooks/rules/fields';

/**
 * Webhook configurations the API accepts, built from the contract of
 * src/webhooks/config/schema.ts and the rules of `configIssues`: every member (field types,
 * `required`, targets fixed and custom, date `formats`, `locale`, every action and its options, `when` with
 * each operator and value kind, templates, descriptions, due offsets, owners and round robins with
 * repeats) in every combination the rules allow.
 *
 * Texts hold HTML metacharacters, accents, emoji, tabs and line breaks, but no CR, NUL or lone
 * surrogate: no HTML form can carry those (a browser sends every line break as CRLF, and a page
 * cannot hold NUL or half a surrogate pair). The panel stores line breaks as LF.
 */

const UNITS = [...'abcXYZ019 -_.,:;!?ãéÇ"\'<>&/=%#@$*()[]', '\t', '\n', '😀', 'ß', 'İ'];

/** Free text of the given length, with none of the braces that would make a placeholder. */
export const formText = (minLength: number, maxLength: number): Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...UNITS), minLength, maxLength });

const KEYS = [
  'nome',
  'lead.phone',
  'lead.email',
  'empresa.cnpj',
  'valor',
  'data',
  'quando.dia',
  'ativo',
  'answers.0.text',
  'ação',
  'a"b',
  '<b>&amp;',
  "o'k",
  'x-y_z',
  'UTM.source',
];

const TOKENS = ['YYYY', 'MM', 'DD', 'HH', 'mm', 'ss'];
const SEPARATORS = [...'/-.: T,'];

/** Date formats the contract takes: tokens and separators in any order that compiles. */
const dateFormat: Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(...TOKENS), fc.constantFrom(...SEPARATORS)), { minLength: 3, maxLength: 9 })
  .map((parts) => parts.join(''))
  .filter((format) => format.length <= 40 && !('error' in compileFormat(format)));

type Field = {
  key: string;
  type: string;
  required?: boolean;
  target?: string;
  formats?: string[];
  locale?: string;
};

/** The fixed targets and the field types that fill each: the contract's own table. */
const FIXED: Readonly<Record<string, readonly string[]>> = fixedTargets;

/** Fields the actions match and name by, often mapped so that every action is generated. */
const MATCHABLE: Field[] = [
  { key: 'tel', type: 'phone', target: 'contact.phone' },
  { key: 'mail', type: 'email', target: 'contact.email' },
  { key: 'cnpj', type: 'string', target: 'company.cnpj' },
  { key: 'negocio', type: 'string', target: 'deal.name' },
];

const customName = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);

const fieldsArb: Arbitrary<Field[]> = fc
  .uniqueArray(
    fc.record(
      {
        key: fc.constantFrom(...KEYS),
        type: fc.constantFrom(...fieldTypes),
        required: fc.boolean(),
        target: fc.oneof(
          fc.constantFrom(...Object.keys(FIXED)),
          fc
            .tuple(fc.constantFrom('contact', 'deal'), customName)
            .map(([on, name]) => `${on}.custom_fields.${name}`),
        ),
        formats: fc.array(dateFormat, { minLength: 1, maxLength: 5 }),
        keep: fc.record({
          required: fc.boolean(),
          target: fc.boolean(),
          formats: fc.boolean(),
          locale: fc.boolean(),
        }),
      },
      { requiredKeys: ['key', 'type', 'keep'] },
    ),
    { selector: (f) => f.key, maxLength: 8 },
  )
  .chain((rows) => fc.tuple(fc.constant(rows), fc.subarray(MATCHABLE), fc.boolean()))
  .map(([rows, base, required]) => {
    const taken = new Set(base.map((f) => f.target));
    const keys = new Set(base.map((f) => f.key));
    const extra = rows
      .filter((row) => !keys.has(row.key))
      .map(({ key, type, required, target, formats, keep }) => {
        const field: Field = { key, type };
        if (keep.required && required !== undefined) field.required = required;
        const fits = target !== undefined && (FIXED[target]?.includes(type) ?? true);
        if (keep.target && target !== undefined && fits && !taken.has(target)) {
          taken.add(target);
          field.target = target;
        }
        if (keep.formats && type === 'date' && formats) field.formats = formats;
        if (keep.locale && (type === 'number' || type === 'boolean')) field.locale = 'pt-BR';
        return field;
      });
    return [...base.map((f) => ({ ...f, required })), ...extra];
  });

/** A template naming some declared keys (those a placeholder can hold) among free text. */
const template = (keys: string[]): Arbitrary<string> => {
  const usable = keys.filter((k) => !/[{}|\s]/.test(k));
  const piece = usable.length
    ? fc.oneof(
        formText(1, 12),
        fc.constantFrom(...usable).map((k) => `{{${k}}}`),
        fc
          .tuple(fc.constantFrom(...usable), formText(0, 8))
          .filter(([, fallback]) => !/[{}]/.test(fallback))
          .map(([k, fallback]) => `{{${k}|${fallback}}}`),
      )
    : formText(1, 12);
  return fc
    .array(piece, { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join(''))
    .filter((t) => t.trim() !== '' && t.length <= 500);
};

const valueOfKind = (kind: string): Arbitrary<string | number | boolean> =>
  kind === 'number'
    ? fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
    : kind === 'boolean'
      ? fc.boolean()
      : formText(0, 20);

const anyValue = fc.oneof(valueOfKind('string'), valueOfKind('number'), valueOfKind('boolean'));

const whenArb = (fields: Field[]) =>
  fc.constantFrom(...fields).chain((f) => {
    const kind = f.type === 'number' || f.type === 'boolean' ? f.type : 'string';
    return fc.oneof(
      fc.record(
        { field: fc.constant(f.key), op: fc.constant('exists'), value: anyValue },
        { requiredKeys: ['field', 'op'] },
      ),
      fc.record({
        field: fc.constant(f.key),
        op: fc.constantFrom('equals', 'not_equals'),
        value: valueOfKind(kind),
      }),
      fc.record({ field: fc.constant(f.key), op: fc.constant('contains'), value: anyValue }),
    );
  });

const ownerArb = (users: number[]) =>
  fc.oneof(
    fc.constantFrom(...users).map((user_id) => ({ user_id })),
    fc
      .array(fc.constantFrom(...users), { minLength: 1, maxLength: 4 })
      .map((round_robin) => ({ round_robin })),
  );

/** `when` and `owner`, each perhaps absent. */
const common = (fields: Field[], users: number[]) =>
  fc
    .record(
      { when: fields.length ? whenArb(fields) : fc.constant(undefined), owner: ownerArb(users) },
      { requiredKeys: [] },
    )
    .map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)));

const mapped = (fields: Field[], target: string) => fields.some((f) => f.target === target);

function flowsArb(fields: Field[], users: number[]): Arbitrary<Record<string, unknown>[]> {
  const keys = fields.map((f) => f.key);
  const dates = ['received_at', ...fields.filter((f) => f.type === 'date').map((f) => f.key)];
  const matchable = (['phone', 'email'] as const).filter((m) => mapped(fields, `contact.${m}`));
  const contact = matchable.length
    ? fc.option(
        fc
          .tuple(
            fc.array(fc.constantFrom(...matchable), { minLength: 1, maxLength: 2 }),
            fc.boolean(),
            common(fields, users),
          )
          .map(([match_on, give, rest]) => ({
            action: 'upsert_contact',
            ...((give || matchable.length < 2) && { match_on }),
            ...rest,
          })),
      )
    : fc.constant(null);
  const company = mapped(fields, 'company.cnpj')
    ? fc.option(common(fields, users).map((rest) => ({ action: 'upsert_company', ...rest })))
    : fc.constant(null);
  const dealName = mapped(fields, 'deal.name')
    ? fc.option(template(keys), { nil: undefined })
    : template(keys);
  const deal = fc.option(
    fc.tuple(dealName, common(fields, users)).map(([name, rest]) => ({
      action: 'create_deal',
      ...(name !== undefined && { name }),
      ...rest,
    })),
  );
  const due = fc.record(
    {
      from: fc.constantFrom(...dates),
      days: fc.integer({ min: -36_500, max: 36_500 }),
      hours: fc.integer({ min: -876_000, max: 876_000 }),
    },
    { requiredKeys: ['from'] },
  );
  const task = fc
    .record(
      {
        name: template(keys),
        category: template(keys),
        description: formText(0, 40),
        due,
        rest: common(fields, users),
      },
      { requiredKeys: ['name', 'category', 'rest'] },
    )
    .map(({ rest, ...task }) => ({ action: 'create_task', ...task, ...rest }));
  return fc
    .tuple(contact, company, fc.boolean(), deal, fc.array(task, { maxLength: 3 }))
    .map(([c, co, companyFirst, d, tasks]) => {
      const upserts = [c, co].filter((a) => a !== null);
      if (companyFirst) upserts.reverse();
      return [...upserts, ...(d ? [d, ...tasks] : [])];
    });
}

/** A configuration (name, fields and flows) whose owners are among `users`. */
export const webhookConfig = (users: number[]) =>
  fc
    .tuple(
      formText(1, 30).filter((n) => n.trim() !== ''),
      fieldsArb,
    )
    .chain(([name, fields]) => flowsArb(fields, users).map((flows) => ({ name, fields, flows })));
