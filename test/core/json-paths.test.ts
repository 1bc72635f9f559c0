import { describe, expect, it } from 'vitest';
import { leaves, valueAt } from '../../src/core/json-paths';

describe('valueAt', () => {
  const body = {
    nome: 'Ana',
    zero: 0,
    off: false,
    nada: null,
    lead: { phone: '11987654321', utm: { source: 'google' } },
    answers: [{ text: 'sim' }, { text: 'não', tags: ['a', 'b'] }],
    'flat.key': 'flat',
  };

  it.each([
    ['nome', 'Ana'],
    ['zero', 0],
    ['off', false],
    ['nada', null],
    ['lead.phone', '11987654321'],
    ['lead.utm.source', 'google'],
    ['lead.utm', { source: 'google' }],
    ['answers.0.text', 'sim'],
    ['answers.1.tags.1', 'b'],
    ['answers', body.answers],
  ])('reads %s', (path, expected) => {
    expect(valueAt(body, path)).toEqual(expected);
  });

  it.each([
    'missing',
    'lead.email',
    'lead.phone.0',
    'nome.length',
    'answers.length',
    'answers.01.text',
    'answers.2.text',
    'answers.-1.text',
    'nada.x',
    'zero.x',
    'flat.key',
    'lead.utm.source.x',
  ])('is undefined for %s, which the body does not have', (path) => {
    expect(valueAt(body, path)).toBeUndefined();
  });

  it.each(['constructor', '__proto__', 'toString', 'lead.hasOwnProperty', 'answers.map', 'lead.__proto__'])(
    'never follows %s into the prototype',
    (path) => {
      expect(valueAt(body, path)).toBeUndefined();
    },
  );

  it('reads own keys that share a name with prototype members', () => {
    const parsed = JSON.parse('{"constructor":"c","__proto__":{"x":1},"lead":{"toString":"s"}}');
    expect(valueAt(parsed, 'constructor')).toBe('c');
    expect(valueAt(parsed, '__proto__.x')).toBe(1);
    expect(valueAt(parsed, 'lead.toString')).toBe('s');
  });

  it('is undefined inside anything that is not an object or array', () => {
    for (const value of [null, undefined, 'text', 5, true]) expect(valueAt(value, 'a')).toBeUndefined();
  });
});

describe('leaves', () => {
  it('lists every leaf with its dot path, depth first, array items by index', () => {
    expect(
      leaves({
        nome: 'Ana',
        lead: { phone: '119', utm: { source: 'g' } },
        answers: [{ text: 'sim' }, 'solto', [true]],
        n: 1.5,
        nada: null,
      }),
    ).toEqual([
      ['nome', 'Ana'],
      ['lead.phone', '119'],
      ['lead.utm.source', 'g'],
      ['answers.0.text', 'sim'],
      ['answers.1', 'solto'],
      ['answers.2.0', true],
      ['n', 1.5],
      ['nada', null],
    ]);
  });

  it('skips empty objects and arrays, and has no leaves for a bare value', () => {
    expect(leaves({ a: {}, b: [], c: { d: {} } })).toEqual([]);
    expect(leaves('text')).toEqual([]);
    expect(leaves(5)).toEqual([]);
    expect(leaves(null)).toEqual([]);
    expect(leaves([1, 2])).toEqual([
      ['0', 1],
      ['1', 2],
    ]);
  });

  it('never offers a reserved key (__proto__, prototype, constructor) or anything under one', () => {
    const parsed = JSON.parse(
      '{"__proto__":{"ADMIN_TOKEN":"x"},"lead":{"constructor":{"x":1},"prototype":2,"ok":3},"nome":"Ana"}',
    );
    expect(leaves(parsed)).toEqual([
      ['lead.ok', 3],
      ['nome', 'Ana'],
    ]);
  });

  it('stops at the limit', () => {
    const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]));
    const all = leaves(wide);
    expect(all).toHaveLength(500);
    expect(all[0]).toEqual(['k0', 0]);
    expect(all[499]).toEqual(['k499', 499]);
    expect(leaves(wide, 3)).toEqual([
      ['k0', 0],
      ['k1', 1],
      ['k2', 2],
    ]);
    const deep = { a: Array.from({ length: 10 }, (_, i) => ({ v: i })) };
    expect(leaves(deep, 4).map(([path]) => path)).toEqual(['a.0.v', 'a.1.v', 'a.2.v', 'a.3.v']);
  });

  it('gives paths that valueAt reads back', () => {
    const body = { x: { y: [{ z: 'deep' }, 7] }, w: false };
    for (const [path, value] of leaves(body)) expect(valueAt(body, path)).toBe(value);
  });
});
