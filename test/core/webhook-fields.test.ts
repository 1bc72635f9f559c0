import { describe, expect, it } from 'vitest';
import {
  compileFormat,
  type FieldSpec,
  guessBrazilian,
  guessType,
  parseFieldDate,
  readFields,
} from '../../src/webhooks/rules/fields';

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
    ['2024-03-05T10:00:00Z', '2024-03-05T10:00:00.000Z', Date.UTC(2024, 2, 5, 10)],
    ['2024-03-05T10:00:00.5Z', '2024-03-05T10:00:00.500Z', Date.UTC(2024, 2, 5, 10, 0, 0, 500)],
    ['2024-03-05T10:00:00.123456789Z', '2024-03-05T10:00:00.123Z', Date.UTC(2024, 2, 5, 10, 0, 0, 123)],
    ['2024-03-05T10:00:00.000+00:00', '2024-03-05T10:00:00.000Z', Date.UTC(2024, 2, 5, 10)],
    ['2024-03-05T10:00:00-03:00', '2024-03-05T13:00:00.000Z', Date.UTC(2024, 2, 5, 13)],
    ['2024-03-05T01:30:00+05:30', '2024-03-04T20:00:00.000Z', Date.UTC(2024, 2, 4, 20)],
    ['2024-03-05 10:00:00Z', '2024-03-05T10:00:00.000Z', Date.UTC(2024, 2, 5, 10)],
    ['2024-03-05t10:00:00z', '2024-03-05T10:00:00.000Z', Date.UTC(2024, 2, 5, 10)],
    ['2024-12-31T23:00:00-03:00', '2025-01-01T02:00:00.000Z', Date.UTC(2025, 0, 1, 2)],
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
    ['2024-03-05T10:00:00.000', 'a time needs an offset'],
    ['2024-03-05T10:00', 'a time needs seconds'],
    ['2024-03-05T10:00:00+0300', 'an offset needs its colon'],
    ['2024-03-05T10:00:00+24:00', 'no offset of 24 hours'],
    ['2024-03-05T10:00:00.Z', 'a fraction needs digits'],
    ['2024-03-05T24:00:00.000Z', 'no hour 24'],
    ['2024-03-05T10:60:00.000Z', 'no minute 60'],
    ['2024-03-05T10:00:60Z', 'no leap second'],
    ['2024-02-30T10:00:00.000Z', 'no 30 February with a time either'],
    ['2024-03-05_10:00:00.000Z', 'only T or a space'],
    ['2024-003-05', 'three-digit month'],
    ['24-03-05', 'two-digit year'],
    ['05/03/2024', 'another format'],
    [' 2024-03-05', 'surrounding space'],
    ['2024-03-05\n', 'trailing newline'],
    ['', 'empty'],
  ])('refuses %j (%s)', (input) => {
    expect(parseFieldDate(input)).toBeUndefined();
  });

  it.each([
    ['05/03/2024', ['DD/MM/YYYY'], '2024-03-05'],
    ['5/3/2024', ['DD/MM/YYYY'], '2024-03-05'],
    ['03-05-2024', ['MM-DD-YYYY'], '2024-03-05'],
    ['05.03.2024 14:30', ['DD.MM.YYYY HH:mm'], '2024-03-05T14:30:00.000Z'],
    ['05/03/2024 9:05:07', ['DD/MM/YYYY HH:mm:ss'], '2024-03-05T09:05:07.000Z'],
    ['20240305', ['YYYYMMDD'], '2024-03-05'],
    ['05/03/2024', ['MM-DD-YYYY', 'DD/MM/YYYY'], '2024-03-05'],
    ['2024-03-05', ['DD/MM/YYYY'], '2024-03-05'],
  ])('reads %s with formats %j as %s', (input, formats, text) => {
    expect(parseFieldDate(input, formats)?.text).toBe(text);
  });

  it.each([
    ['05/03/2024', []],
    ['31/02/2024', ['DD/MM/YYYY']],
    ['13/05/2024', ['MM/DD/YYYY']],
    ['05-03-2024', ['DD/MM/YYYY']],
    ['05/03/24', ['DD/MM/YYYY']],
    ['05/03/2024 24:00', ['DD/MM/YYYY HH:mm']],
    ['05/03/2024', ['DD/MM/YYYY HH:mm']],
    [' 05/03/2024', ['DD/MM/YYYY']],
  ])('refuses %s with formats %j', (input, formats) => {
    expect(parseFieldDate(input, formats)).toBeUndefined();
  });
});

describe('compileFormat', () => {
  it.each(['DD/MM/YYYY', 'MM-DD-YYYY', 'YYYY.MM.DD', 'DD/MM/YYYY HH:mm', 'DD/MM/YYYYTHH:mm:ss', 'YYYYMMDD'])(
    'takes %s',
    (format) => {
      expect(compileFormat(format)).not.toHaveProperty('error');
    },
  );

  it.each([
    ['dd/mm/yyyy', 'Unknown token "dd"'],
    ['DD/MM/YY', 'Unknown token "YY"'],
    ['DD/MM/YYYY hh:mm', 'Unknown token "hh"'],
    ['DD/MM/YYYY HH:mm:ss.SSS', 'Unknown token "SSS"'],
    ['DD_MM_YYYY', 'Unknown token "_"'],
    ['DD/MM', 'YYYY is missing'],
    ['MM/YYYY', 'DD is missing'],
    ['DD/DD/MM/YYYY', 'DD appears twice'],
    ['DD/MM/YYYY ss', 'ss needs mm'],
    ['DD/MM/YYYY mm', 'mm needs HH'],
  ])('refuses %s: %s', (format, message) => {
    const compiled = compileFormat(format);
    expect('error' in compiled && compiled.error.message).toContain(message);
    expect('error' in compiled && compiled.error.code).toMatch(/^format_/);
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
      { path: 'a', code: 'required', params: { key: 'a' }, message: 'This field is required.' },
      { path: 'b', code: 'required', params: { key: 'b' }, message: 'This field is required.' },
    ]);
  });

  it('reports every required value that does not fit its type, keyed by the field key, in declaration order', () => {
    const body = {
      s: [1],
      n: 'one',
      b: 'maybe',
      d: '2024-02-30',
      p: '123',
      e: 'x@',
      lead: { phone: 123 },
      ok: 'yes',
    };
    const keys = ['s', 'n', 'b', 'd', 'p', 'e', 'lead.phone'];
    const types: FieldSpec['type'][] = ['string', 'number', 'boolean', 'date', 'phone', 'email', 'phone'];
    const required = readFields(body, [
      ...keys.map((k, i) => spec(k, types[i] ?? 'string', true)),
      spec('ok', 'string'),
    ]);
    expect(required.errors.map((e) => [e.path, e.code])).toEqual(keys.map((k) => [k, 'invalid_type']));
    for (const error of required.errors) expect(error.message).toMatch(/^Expected .+\.$/);
    expect(required.warnings).toEqual([]);
    expect(Object.fromEntries(required.values)).toEqual({ ok: 'yes' });

    const optional = readFields(body, [
      ...keys.map((k, i) => spec(k, types[i] ?? 'string')),
      spec('ok', 'string'),
    ]);
    expect(optional.errors).toEqual([]);
    expect(optional.warnings.map((e) => [e.path, e.code])).toEqual(keys.map((k) => [k, 'dropped']));
    for (const warning of optional.warnings) expect(warning.message).toMatch(/^Left out: Expected .+\.$/);
    expect(Object.fromEntries(optional.values)).toEqual({ ok: 'yes' });
  });

  it('leaves out a whole number beyond 2^53 - 1 sent as text to a number field, saying why, instead of rounding it', () => {
    const { values, errors, warnings } = readFields(
      { pedido: '9007199254740993', valor: 'R$ 90.071.992.547.409.930', ok: '9007199254740991' },
      [spec('pedido', 'number'), { ...spec('valor', 'number'), locale: 'pt-BR' }, spec('ok', 'number')],
    );
    expect(errors).toEqual([]);
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['pedido', 'dropped'],
      ['valor', 'dropped'],
    ]);
    expect(warnings[0]?.message).toBe(
      'Left out: Expected a whole number of at most 9007199254740991 (2^53 - 1): a larger one would be stored rounded; map it to a string field.',
    );
    expect(Object.fromEntries(values)).toEqual({ ok: 9007199254740991 });
  });

  it('coerces near misses to the canonical value', () => {
    const { values, errors, warnings } = readFields(
      {
        valor: '89900',
        preco: '899,00',
        taxa: ' 2.5 ',
        tel: 11987654321,
        codigo: 42,
        ativo: 'TRUE',
        novo: 0,
        quando: '2024-03-05T10:00:00Z',
        data: '05/03/2024',
        email: '',
      },
      [
        spec('valor', 'number'),
        spec('preco', 'number'),
        spec('taxa', 'number'),
        spec('tel', 'phone'),
        spec('codigo', 'string'),
        spec('ativo', 'boolean'),
        spec('novo', 'boolean'),
        spec('quando', 'date'),
        { ...spec('data', 'date'), formats: ['DD/MM/YYYY'] },
        spec('email', 'email'),
      ],
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(Object.fromEntries(values)).toEqual({
      valor: 89900,
      preco: 899,
      taxa: 2.5,
      tel: '+5511987654321',
      codigo: '42',
      ativo: true,
      novo: false,
      quando: '2024-03-05T10:00:00.000Z',
      data: '2024-03-05',
    });
  });

  it('refuses a number with a separator before exactly three digits, as it is ambiguous', () => {
    for (const valor of ['1.500', '1,500', '-2.000']) {
      expect(readFields({ valor }, [spec('valor', 'number', true)]).errors).toEqual([
        {
          path: 'valor',
          code: 'invalid_type',
          params: { key: 'valor', type: 'number', expected: 'no_thousands' },
          message: expect.stringContaining('ambiguous'),
        },
      ]);
    }
  });

  it.each([
    [
      'number',
      [0, -1, 2.5, 1e21, '1', '-0,5'],
      ['one', true, [], {}, '1.000', Number.POSITIVE_INFINITY, '9'.repeat(400)],
    ],
    ['boolean', [true, false, 'true', 'false', 1, 0, '1', '0'], ['yes', 2, [], {}]],
    [
      'string',
      ['x', 'y'.repeat(10_000), '😀', 1, false],
      [['x'], {}, 'y'.repeat(10_001), 'a\ud800b', '\udc00'],
    ],
    ['email', ['a@b.co', 'ANA@EXAMPLE.COM'], ['a@b', '@b.co', 'a b@c.co', 'a@b.co'.padStart(255, 'x'), 5]],
    [
      'phone',
      ['+14155552671', '011 98765-4321', '55 11 3456-7890', 11987654321],
      ['123', '+0123456789', 123, 1.5, true],
    ],
    [
      'date',
      ['2024-3-5', '2024-03-05T00:00:00.000Z', '2024-03-05T00:00:00Z'],
      ['2024-3-5T00:00:00Z', 20240305, '2024-02-30'],
    ],
  ] as [FieldSpec['type'], unknown[], unknown[]][])('%s: accepts %j and refuses %j', (type, good, bad) => {
    for (const v of good)
      expect(readFields({ v }, [spec('v', type, true)]).errors, JSON.stringify(v)).toEqual([]);
    for (const v of bad) {
      expect(readFields({ v }, [spec('v', type, true)]).errors, JSON.stringify(v)).toEqual([
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
    expect(readFields({ anything: [1, 2] }, [])).toEqual({ values: new Map(), errors: [], warnings: [] });
  });
});

describe('readFields: pt-BR numbers and booleans', () => {
  const br = (type: FieldSpec['type'], required = false): FieldSpec[] => [
    { key: 'v', type, required, locale: 'pt-BR' },
  ];
  const read = (v: unknown, type: FieldSpec['type'], required = false) =>
    readFields({ v }, br(type, required));

  it.each([
    ['89.900,00', 89900],
    ['R$ 120.000', 120000],
    ['R$\u00a0120.000,50', 120000.5],
    ['r$1,5', 1.5],
    ['1.234', 1234],
    ['1.234.567,89', 1234567.89],
    ['-R$ 10,00', -10],
    ['R$ -10,00', -10],
    ['0,5', 0.5],
    ['12', 12],
    [' 7 ', 7],
    [89900.5, 89900.5],
  ])('reads %j as %j', (sent, value) => {
    expect(read(sent, 'number').values.get('v')).toBe(value);
  });

  it.each([
    '1.5',
    '1.23',
    '12.34,5',
    '1,234.5',
    '1.2345',
    '--1',
    '- R$ -1',
    'R$',
    '1e3',
    'R$ 1 000',
    'US$ 10',
  ])('refuses %j, with the Brazilian way in the message', (sent) => {
    const { values, errors, warnings } = read(sent, 'number');
    expect(values.has('v')).toBe(false);
    expect(errors).toEqual([]);
    expect(warnings[0]?.message).toContain('Brazilian way');
  });

  it('refuses a wrong Brazilian number with a 422-worthy error when the field is required', () => {
    expect(read('1.5', 'number', true).errors).toMatchObject([{ path: 'v', code: 'invalid_type' }]);
  });

  it.each([
    ['sim', true],
    ['SIM', true],
    ['s', true],
    [' S ', true],
    ['não', false],
    ['Não', false],
    ['na\u0303o', false],
    ['nao', false],
    ['n', false],
    ['true', true],
    [0, false],
    [true, true],
  ])('reads the boolean %j as %j', (sent, value) => {
    expect(read(sent, 'boolean').values.get('v')).toBe(value);
  });

  it.each(['talvez', 'yes', 'si', 'nã', '', 'constructor', '__proto__', 'toString'])(
    'refuses the boolean %j',
    (sent) => {
      const { values, warnings } = read(sent, 'boolean');
      expect(values.has('v')).toBe(false);
      if (sent) expect(warnings[0]?.message).toContain('sim, não');
    },
  );

  it('reads as before without the locale: sim and 89.900,00 are refused, 1.5 is one and a half', () => {
    const plain = (v: unknown, type: FieldSpec['type']) =>
      readFields({ v }, [{ key: 'v', type, required: false }]);
    expect(plain('sim', 'boolean').values.has('v')).toBe(false);
    expect(plain('89.900,00', 'number').values.has('v')).toBe(false);
    expect(plain('1.5', 'number').values.get('v')).toBe(1.5);
    expect(plain('1.234', 'number').values.has('v')).toBe(false);
  });
});

describe('guessBrazilian', () => {
  it.each([
    ['89.900,00', { type: 'number', locale: 'pt-BR' }],
    ['R$ 120.000', { type: 'number', locale: 'pt-BR' }],
    ['1,5', { type: 'number', locale: 'pt-BR' }],
    ['Sim', { type: 'boolean', locale: 'pt-BR' }],
    ['não', { type: 'boolean', locale: 'pt-BR' }],
    ['s', undefined],
    ['Ana', undefined],
    ['89900', undefined],
    ['1.5', undefined],
    [89900, undefined],
    ['2024-03-05', undefined],
  ])('guesses %j as %j', (value, guess) => {
    expect(guessBrazilian(value)).toEqual(guess);
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
    ['2024-03-05T10:00:00Z', 'date'],
    ['05/03/2024', 'string'],
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
