import { describe, expect, it } from 'vitest';
import { type FieldSpec, guessType, parseFieldDate, readFields } from '../../src/domain/webhook-fields';

describe('parseFieldDate', () => {
  it.each([
    ['2024-03-05', '2024-03-05', Date.UTC(2024, 2, 5)],
    ['2024-3-5', '2024-03-05', Date.UTC(2024, 2, 5)],
    ['2024-03-5', '2024-03-05', Date.UTC(2024, 2, 5)],
    ['2024-3-05', '2024-03-05', Date.UTC(2024, 2, 5)],
    ['2024-02-29', '2024-02-29', Date.UTC(2024, 1, 29)],
    ['2000-02-29', '2000-02-29', Date.UTC(2000, 1, 29)],
    ['2024-12-31', '2024-12-31', Date.UTC(2024, 11, 31)],
    ['0001-01-01', '0001-01-01', Date.parse('0001-01-01T00:00:00.000Z')],
    ['2024-03-05T10:00:00.000Z', '2024-03-05T10:00:00.000Z', Date.UTC(2024, 2, 5, 10)],
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
  ])('reads %s as %s', (input, text, ms) => {
    expect(parseFieldDate(input)).toEqual({ ms, text });
  });

  it.each([
    ['2024-02-30', 'no 30 February'],
    ['2023-02-29', 'not a leap year'],
    ['1900-02-29', 'not a leap year (century)'],
    ['2024-13-01', 'no month 13'],
    ['2024-00-10', 'no month 0'],
    ['2024-04-31', 'April has 30 days'],
    ['2024-03-00', 'no day 0'],
    ['2024-3-5T10:00:00Z', 'a time needs the padded date'],
    ['2024-3-5T10:00:00.000Z', 'a time needs the padded date'],
    ['2024-03-05T10:00:00Z', 'a time needs milliseconds'],
    ['2024-03-05T10:00:00.00Z', 'milliseconds have three digits'],
    ['2024-03-05T10:00:00.000', 'a time needs the Z'],
    ['2024-03-05T10:00:00.000+00:00', 'only Z'],
    ['2024-03-05T24:00:00.000Z', 'no hour 24'],
    ['2024-03-05T10:60:00.000Z', 'no minute 60'],
    ['2024-02-30T10:00:00.000Z', 'no 30 February with a time either'],
    ['2024-03-05 10:00:00.000Z', 'a space is not T'],
    ['2024-003-05', 'three-digit month'],
    ['24-03-05', 'two-digit year'],
    ['05/03/2024', 'another format'],
    [' 2024-03-05', 'surrounding space'],
    ['2024-03-05\n', 'trailing newline'],
    ['', 'empty'],
  ])('refuses %j (%s)', (input) => {
    expect(parseFieldDate(input)).toBeUndefined();
  });
});

describe('readFields', () => {
  const spec = (key: string, type: FieldSpec['type'], required = false): FieldSpec => ({
    key,
    type,
    required,
  });

  it('returns the canonical value of every field present', () => {
    const { values, errors } = readFields(
      {
        nome: 'Ana',
        email: '  Ana@Example.com ',
        tel: '(11) 98765-4321',
        data: '2024-3-5',
        quando: '2024-03-05T10:00:00.000Z',
        idade: 31,
        vip: false,
        lead: { origem: 'site' },
        extra: 'not declared',
      },
      [
        spec('nome', 'string', true),
        spec('email', 'email'),
        spec('tel', 'phone'),
        spec('data', 'date'),
        spec('quando', 'date'),
        spec('idade', 'number'),
        spec('vip', 'boolean'),
        spec('lead.origem', 'string'),
      ],
    );
    expect(errors).toEqual([]);
    expect(Object.fromEntries(values)).toEqual({
      nome: 'Ana',
      email: 'Ana@Example.com',
      tel: '+5511987654321',
      data: '2024-03-05',
      quando: '2024-03-05T10:00:00.000Z',
      idade: 31,
      vip: false,
      'lead.origem': 'site',
    });
  });

  it('reports a required field that is absent or null, and skips an optional one', () => {
    const { values, errors } = readFields({ b: null, d: null }, [
      spec('a', 'string', true),
      spec('b', 'number', true),
      spec('c', 'string'),
      spec('d', 'date'),
    ]);
    expect(values.size).toBe(0);
    expect(errors).toEqual([
      { path: 'a', code: 'required', message: 'This field is required.' },
      { path: 'b', code: 'required', message: 'This field is required.' },
    ]);
  });

  it('reports every value that does not fit its type, keyed by the field key, in declaration order', () => {
    const { values, errors } = readFields(
      {
        s: 1,
        n: '1',
        b: 'true',
        d: '2024-02-30',
        p: '123',
        e: 'x@',
        lead: { phone: 11987654321 },
        ok: 'yes',
      },
      [
        spec('s', 'string'),
        spec('n', 'number'),
        spec('b', 'boolean', true),
        spec('d', 'date'),
        spec('p', 'phone'),
        spec('e', 'email'),
        spec('lead.phone', 'phone'),
        spec('ok', 'string'),
      ],
    );
    expect(errors.map((e) => [e.path, e.code])).toEqual([
      ['s', 'invalid_type'],
      ['n', 'invalid_type'],
      ['b', 'invalid_type'],
      ['d', 'invalid_type'],
      ['p', 'invalid_type'],
      ['e', 'invalid_type'],
      ['lead.phone', 'invalid_type'],
    ]);
    for (const error of errors) expect(error.message).toMatch(/^Expected .+\.$/);
    expect(Object.fromEntries(values)).toEqual({ ok: 'yes' });
  });

  it.each([
    ['number', [0, -1, 2.5, 1e21], ['1', true, [], {}]],
    ['boolean', [true, false], ['true', 'false', 1, 0]],
    [
      'string',
      ['', 'x', 'y'.repeat(10_000), '😀'],
      [1, false, ['x'], 'y'.repeat(10_001), 'a\ud800b', '\udc00'],
    ],
    ['email', ['a@b.co', 'ANA@EXAMPLE.COM'], ['a@b', '@b.co', 'a b@c.co', 'a@b.co'.padStart(255, 'x'), 5]],
    ['phone', ['+14155552671', '011 98765-4321', '55 11 3456-7890'], ['123', '+0123456789', '', 11987654321]],
    ['date', ['2024-3-5', '2024-03-05T00:00:00.000Z'], ['2024-3-5T00:00:00Z', 20240305, '2024-02-30']],
  ] as [FieldSpec['type'], unknown[], unknown[]][])('%s: accepts %j and refuses %j', (type, good, bad) => {
    for (const v of good) expect(readFields({ v }, [spec('v', type)]).errors, JSON.stringify(v)).toEqual([]);
    for (const v of bad) {
      expect(readFields({ v }, [spec('v', type)]).errors, JSON.stringify(v)).toEqual([
        expect.objectContaining({ path: 'v', code: 'invalid_type' }),
      ]);
    }
  });

  it('reads nothing from a body that is not an object, and never from the prototype', () => {
    for (const body of [null, 'text', 5, ['a']]) {
      expect(readFields(body, [spec('a', 'string', true)]).errors).toEqual([
        expect.objectContaining({ path: 'a', code: 'required' }),
      ]);
    }
    expect(readFields({}, [spec('constructor', 'string', true)]).errors).toEqual([
      expect.objectContaining({ path: 'constructor', code: 'required' }),
    ]);
  });

  it('has nothing to report without declared fields', () => {
    expect(readFields({ anything: [1, 2] }, [])).toEqual({ values: new Map(), errors: [] });
  });
});

describe('guessType', () => {
  it.each([
    [31, 'number'],
    [2.5, 'number'],
    [true, 'boolean'],
    [false, 'boolean'],
    [null, 'string'],
    ['Ana Souza', 'string'],
    ['', 'string'],
    ['2024-3-5', 'date'],
    ['2024-03-05', 'date'],
    ['2024-03-05T10:00:00.000Z', 'date'],
    ['2024-02-30', 'string'],
    ['2024-03-05T10:00:00Z', 'string'],
    ['ana@example.com', 'email'],
    ['+55 11 98765-4321', 'phone'],
    ['(11) 98765-4321', 'phone'],
    ['+1 415 555 2671', 'phone'],
    ['12345', 'string'],
    ['Onix LT 1.0', 'string'],
  ])('guesses %j is a %s', (value, type) => {
    expect(guessType(value)).toBe(type);
  });
});
