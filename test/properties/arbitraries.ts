import fc, { type Arbitrary } from 'fast-check';
import { mask, withCheckDigits } from '../cnpj';
import type { Json } from '../helpers';
import type { Contract } from './checks';

/**
 * Texts that have broken parsers, SQL, LIKE and FTS before: metacharacters, Unicode edge cases (lone
 * surrogates, right-to-left, combining marks, emoji sequences, case folds that change length) and NUL.
 */
const NASTY_TEXTS = [
  '',
  ' ',
  '\t\n\r',
  "'",
  '"',
  '%',
  '_',
  '\\',
  ';--',
  "' OR '1'='1",
  "x'); DROP TABLE users;--",
  '%_%',
  '\\%\\_',
  '[a-z]*',
  'NEAR(a b)',
  '"a" OR b*',
  '{{nome}}',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שָׁלוֹם',
  '😀👍🏽👨‍👩‍👧',
  'ÉRICA',
  'ΟΔΥΣΣΕΥΣ',
  'İstanbul',
  'ß',
  'ﬃ',
  '\ufeff',
  '\u200b',
  'e\u0301',
  'null',
  'true',
  '0',
  '-1',
  '1e400',
  'NaN',
  '__proto__',
  'constructor',
];

const UNITS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -çãéÉ'.split('');

/** Tame text (letters, digits, spaces, a few accented letters) of the given length bounds. */
export const plainText = (minLength = 1, maxLength = 24): Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...UNITS), minLength, maxLength });

/** Any text at all, lone surrogates and huge ones included. */
export const nastyText: Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_TEXTS),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc
    .array(fc.constantFrom(...NASTY_TEXTS, 'a', 'Z', ' ', 'é'), { maxLength: 6 })
    .map((parts) => parts.join('')),
  fc
    .tuple(plainText(0, 8), fc.integer({ min: 0xd800, max: 0xdfff }))
    .map(([t, s]) => t + String.fromCharCode(s)),
  fc.constantFrom(100, 254, 255, 256, 1000, 10_000, 10_001, 70_000).map((n) => 'é'.repeat(n)),
);

export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  1.5,
  -1.5,
  1e-7,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  2 ** 64,
  1e15,
  1e15 + 1,
  1e21,
  1e308,
  Number.MIN_VALUE,
  -Number.MAX_VALUE,
];

export const nastyNumber: Arbitrary<number> = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/**
 * JSON that JSON.stringify cannot write: numbers past a double or past 2^53, negative zero,
 * escaped lone surrogates and NUL. A generated value holds a marker for one; `jsonText` splices it in.
 */
const RAW_TOKENS = [
  '1e400',
  '-1e400',
  '9007199254740993',
  '123456789012345678901234567890',
  '-0',
  '1.0',
  '1E2',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"a\\u0000b"',
  '"\\u202e"',
];
const RAW = /"\\u0001RAW(\d+)\\u0001"/g;
const rawToken: Arbitrary<string> = fc.nat(RAW_TOKENS.length - 1).map((i) => `\u0001RAW${i}\u0001`);

/** A value as JSON text, with its raw tokens spliced in. */
export const jsonText = (value: unknown): string =>
  (JSON.stringify(value) ?? 'null').replace(RAW, (_, i: string) => RAW_TOKENS[Number(i)] ?? 'null');

/** Dates and date-times: valid ones with any offset, and ones that only look like dates. */
export const dateText: Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2024-02-30T10:00:00Z',
    '2024-02-29T24:00:00Z',
    '2023-02-29',
    '2024-13-01',
    '0000-00-00',
    '2024-1-5',
    '2024-01-01T00:00:00',
    '2024-01-01T00:00:60Z',
    '2024-01-01T00:00:00+25:00',
    '10000-01-01T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999-01:00',
    '0000-01-01T00:00:00.000+00:01',
    '2024-01-01T00:00:00.123456789Z',
    '2024-01-01t00:00:00z',
    '2024-01-01 00:00:00Z',
    'yesterday',
    '1700000000',
    '',
  ),
  fc
    .tuple(
      fc.date({
        min: new Date('0000-01-02T00:00:00Z'),
        max: new Date('9999-12-30T00:00:00Z'),
        noInvalidDate: true,
      }),
      fc.constantFrom('Z', '+00:00', '-03:00', '+0530', '+14:00', '-12:00'),
    )
    .map(([d, zone]) => d.toISOString().replace('Z', zone)),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
);

const CNPJ_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');

const cnpjBase = fc.string({ unit: fc.constantFrom(...CNPJ_CHARS), minLength: 12, maxLength: 12 });

/** A valid CNPJ, bare or masked, in either case, perhaps with surrounding spaces. */
export const goodCnpj: Arbitrary<string> = fc
  .tuple(fc.oneof(cnpjBase, fc.stringMatching(/^\d{12}$/)), fc.nat(3))
  .filter(([base]) => !/^(.)\1*$/.test(base))
  .map(([base, form]) => {
    const cnpj = withCheckDigits(base);
    return [cnpj, mask(cnpj), ` ${mask(cnpj).toLowerCase()} `, cnpj.toLowerCase()][form] as string;
  });

/** CNPJs of every form with random check digits, partial masks, inner spaces and wrong lengths. */
export const anyCnpj: Arbitrary<string> = fc.oneof(
  goodCnpj,
  fc.tuple(cnpjBase, fc.integer({ min: 0, max: 99 }), fc.nat(4)).map(([base, digits, form]) => {
    const cnpj = `${base}${String(digits).padStart(2, '0')}`;
    return [
      cnpj,
      mask(cnpj),
      mask(cnpj).replace('/', ''),
      `${cnpj.slice(0, 7)} ${cnpj.slice(7)}`,
      cnpj.slice(1),
    ][form] as string;
  }),
  fc.constantFrom('00000000000000', '11.111.111/1111-11', '12.345.678/0001-9', '', 'ABCDEFGHIJKLMN'),
);

export const email: Arbitrary<string> = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.constantFrom('example.com', 'acme.com.br'))
  .map(([user, domain]) => `${user}@${domain}`);

export const phone: Arbitrary<string> = fc
  .tuple(fc.integer({ min: 11, max: 99 }), fc.stringMatching(/^9\d{8}$/), fc.nat(2))
  .filter(([ddd]) => ddd % 10 !== 0)
  .map(([ddd, n, form]) =>
    form === 0 ? `+55${ddd}${n}` : form === 1 ? `(${ddd}) ${n.slice(0, 5)}-${n.slice(5)}` : `0${ddd} ${n}`,
  );

export const EDGE_IDS = [0, -1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 63, 1.5, -0];

/** An id as it can appear in a path or a query: numbers at and past the edges, and things that are no number. */
export const idText: Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '00',
    '01',
    '+1',
    '1.0',
    '1e3',
    '0x10',
    ' 1',
    '9007199254740991',
    '9007199254740992',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999',
    'abc',
    '1,2',
    'null',
  ),
  nastyText,
);

/** Junk of any JSON type, nested a few levels, with raw tokens inside. */
export const junk: Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    nastyText,
    nastyNumber,
    fc.constant(null),
    fc.boolean(),
    rawToken,
    dateText,
    anyCnpj,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(plainText(1, 8), nastyText), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Arbitraries for fields whose meaning a schema cannot say: by property name. */
export type Hints = Record<string, Arbitrary<unknown>>;

/** Values a JSON Schema of the document accepts (mostly: formats and patterns the API checks further are hinted). */
export function fromSchema(api: Contract, node: Json, hints: Hints, name = ''): Arbitrary<unknown> {
  const schema = api.resolve(node) ?? {};
  const hint = hints[name];
  if (hint && schema.type !== 'array') return hint;
  if (schema.allOf) return fromSchema(api, schema.allOf[0], hints, name);
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices) return fc.oneof(...choices.map((choice: Json) => fromSchema(api, choice, hints, name)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type: string) => fromSchema(api, { ...schema, type }, hints, name)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? (schema.exclusiveMinimum ?? -1e6) + 1, -1e6),
        max: Math.min(schema.maximum ?? 1e6, 1e6),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
    case 'string':
      if (schema.format === 'date-time') return dateText.filter((d) => d.includes('T'));
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { maxLength: 20 });
      return plainText(Math.max(schema.minLength ?? 0, 1), Math.min(schema.maxLength ?? 24, 24));
    case 'array':
      return fc.array(fromSchema(api, schema.items, hints, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    default:
      return objectFromSchema(api, schema, hints);
  }
}

function objectFromSchema(api: Contract, schema: Json, hints: Hints): Arbitrary<unknown> {
  const properties = Object.entries<Json>(schema.properties ?? {}).filter(([, p]) => !p.readOnly);
  if (!properties.length && schema.additionalProperties && schema.additionalProperties !== true) {
    return fc.dictionary(plainText(1, 10), fromSchema(api, schema.additionalProperties, hints), {
      maxKeys: 4,
    });
  }
  const required: string[] = schema.required ?? [];
  return fc.record(Object.fromEntries(properties.map(([key, p]) => [key, fromSchema(api, p, hints, key)])), {
    requiredKeys: properties.map(([key]) => key).filter((key) => required.includes(key)),
  });
}

/** A valid-looking object with one field (known, read-only, unknown or `__proto__`) set to junk. */
export function mutated(api: Contract, schema: Json, valid: Arbitrary<unknown>): Arbitrary<unknown> {
  const keys = [...Object.keys(api.resolve(schema)?.properties ?? {}), 'unknown_field', '__proto__', 'id'];
  return fc.tuple(valid, fc.constantFrom(...keys), junk).map(([value, key, bad]) => {
    const object = value !== null && typeof value === 'object' ? { ...value } : {};
    Object.defineProperty(object, key, { value: bad, enumerable: true, writable: true, configurable: true });
    return object;
  });
}

/** Printable ASCII header values (workerd sends anything else as UTF-8, with a warning), edges included. */
export const headerText: Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  fc.constantFrom('', ' ', 'x'.repeat(300), "';--", '%00', 'null'),
);

/**
 * A query value percent-encoded as sent on the wire; a lone surrogate becomes the bytes of its
 * WTF-8 form, which is no valid UTF-8.
 */
export function encodeQuery(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.charCodeAt(0);
    out +=
      char.length === 1 && code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(char);
  }
  return out;
}

const toBase64url = (text: string): string =>
  btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** Cursors: forged ones that decode (any sort name, value and id), and ones that do not. */
export const cursorText = (sorts: string[]): Arbitrary<string> =>
  fc.oneof(
    fc
      .tuple(fc.oneof(fc.constantFrom(...sorts, '-created_at'), nastyText), junk, fc.oneof(nastyNumber, junk))
      .map((parts) => toBase64url(jsonText(parts))),
    fc
      .tuple(fc.constantFrom(...sorts, '-created_at'), junk)
      .map(([sort, value]) => toBase64url(jsonText([sort, value]))),
    junk.map((value) => toBase64url(jsonText(value))),
    nastyText,
    fc.constantFrom('', '=', '%%%', 'A'.repeat(5000)),
  );

const VALID_DATES: Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      }),
      fc.constantFrom('Z', '+00:00', '-03:00', '+0530'),
    )
    .map(([d, zone]) => d.toISOString().replace('Z', zone)),
  fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 10)),
);

/**
 * Values for a documented query parameter, by its name and schema: `valid` ones the API should
 * take (ids from `ids`), and `any`, which adds junk of every kind.
 */
export function queryValues(
  api: Contract,
  param: Json,
  ids: Arbitrary<number>,
): { valid: Arbitrary<string | undefined>; any: Arbitrary<string | undefined> } {
  const name: string = param.name;
  const schema = api.resolve(param.schema) ?? {};
  const idList = fc.array(ids, { minLength: 1, maxLength: 4 }).map((list) => list.join(','));
  const byName: [RegExp, Arbitrary<string | undefined>, Arbitrary<string>][] = [
    [
      /_id$/,
      idList,
      fc.oneof(
        fc.array(fc.constantFrom(...EDGE_IDS), { minLength: 1, maxLength: 3 }).map((list) => list.join(',')),
        fc.constantFrom(
          ',',
          '1,,2',
          ' 1 , 2 ',
          Array(101).fill('1').join(','),
          Array(100).fill('7').join(','),
        ),
      ),
    ],
    [/__(gte|lte|gt|lt)$/, VALID_DATES, dateText],
    // Only the API makes a valid cursor: none is made up here.
    [
      /^cursor$/,
      fc.constant(undefined),
      cursorText(['name', '-name', 'created_at', '-created_at', 'due_date']),
    ],
    [
      /^limit$/,
      fc.integer({ min: 1, max: 100 }).map(String),
      fc.oneof(
        fc.integer({ min: -2, max: 102 }).map(String),
        fc.constantFrom('1.5', '1e2', '', '0x10', ' 5'),
      ),
    ],
    [/^cnpj$/, goodCnpj, anyCnpj],
    [
      /^email$/,
      fc.oneof(
        email,
        email.map((e) => ` ${e.toUpperCase()} `),
      ),
      nastyText,
    ],
    [/^phone$/, phone, nastyText],
    [
      /^status$/,
      fc.constantFrom('open', 'won,lost', 'pending', 'failed', 'test', 'processed'),
      fc.constantFrom('open,,won', 'OPEN', ','),
    ],
  ];
  const [, valid, junkValue] = byName.find(([pattern]) => pattern.test(name)) ?? [
    undefined,
    schema.enum ? fc.constantFrom(...schema.enum.map(String)) : plainText(1, 12),
    nastyText,
  ];
  const validValue = schema.enum ? fc.constantFrom(...schema.enum.map(String)) : valid;
  return {
    valid: validValue,
    any: fc.oneof({ weight: 3, arbitrary: validValue }, junkValue, nastyText, idText),
  };
}

/** A webhook mapping every property file uses: each field type, a required one, and targets. */
export const EVENT_FIELDS = [
  { key: 'email', type: 'email', required: true, target: 'contact.email' },
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'valor', type: 'number', target: 'deal.value' },
  { key: 'quando', type: 'date' },
  { key: 'tel', type: 'phone', target: 'contact.phone' },
];

/** A webhook configuration's field keys and `when` fields name the keys of EVENT_FIELDS. */
export const eventKeyHints: Hints = {
  key: fc.constantFrom(...EVENT_FIELDS.map((f) => f.key)),
  field: fc.constantFrom(...EVENT_FIELDS.map((f) => f.key)),
};

/** Flows over EVENT_FIELDS: every action, a user as owner and a round robin. */
export const flowsFor = (owner: unknown, rotation: unknown[]): unknown[] => [
  { action: 'upsert_contact', owner: { user_id: owner } },
  { action: 'create_deal', name: 'From {{nome}}', owner: { round_robin: rotation } },
  { action: 'create_task', name: 'Call {{nome}}', category: 'Ligação', due: { from: 'quando', days: 1 } },
];

/** Flows over EVENT_FIELDS whose owners come from `user`. */
export const eventFlows = (user: Arbitrary<unknown>): Arbitrary<unknown[]> =>
  fc
    .tuple(user, fc.array(user, { minLength: 1, maxLength: 3 }))
    .map(([owner, rotation]) => flowsFor(owner, rotation));

/** An event that EVENT_FIELDS accepts. */
export const event: Arbitrary<Record<string, unknown>> = fc.record(
  {
    email,
    nome: plainText(),
    valor: fc.double({ min: -1e9, max: 1e9, noNaN: true }),
    quando: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
    tel: phone,
  },
  { requiredKeys: ['email'] },
);

/** The kinds of rows that references and path ids name. */
export type Kind = 'users' | 'companies' | 'contacts' | 'deals' | 'tasks' | 'webhooks' | 'events';

/** The kind of row each id-holding field names, in request and response bodies. */
export const KIND_OF_FIELD: Record<string, Kind> = {
  owner_id: 'users',
  owner_ids: 'users',
  follower_ids: 'users',
  user_id: 'users',
  round_robin: 'users',
  company_id: 'companies',
  contact_id: 'contacts',
  deal_id: 'deals',
  task_ids: 'tasks',
  webhook_id: 'webhooks',
};

/** Hints for every reference field of a request body, with ids from `ids` by kind. */
export const refHints = (ids: (kind: Kind) => Arbitrary<unknown>): Hints =>
  Object.fromEntries(Object.entries(KIND_OF_FIELD).map(([field, kind]) => [field, ids(kind)]));

/** The kind of row a path segment lists (`/v1/inbound-webhooks/{id}` holds webhooks). */
export const KIND_OF_SEGMENT: Record<string, Kind> = {
  users: 'users',
  companies: 'companies',
  contacts: 'contacts',
  deals: 'deals',
  tasks: 'tasks',
  'inbound-webhooks': 'webhooks',
  events: 'events',
};

/** The path segment before `{param}` in an OpenAPI path: what kind of id it is. */
export const segmentBefore = (path: string, param: string): string => {
  const segments = path.split('/');
  return segments[segments.indexOf(`{${param}}`) - 1] ?? '';
};
