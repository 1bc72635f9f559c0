import { describe, expect, it } from 'vitest';
import { MAX_DEPTH } from '../../src/core/json-paths';
import { MAX_RESERVED_WARNINGS, reservedSegmentOf, withoutReservedKeys } from '../../src/core/outside-keys';
import { ownVar } from '../../src/core/own-vars';

describe('reservedSegmentOf', () => {
  it('finds __proto__, prototype and constructor as any segment of a dot path, and nothing else', () => {
    expect(reservedSegmentOf('__proto__')).toBe('__proto__');
    expect(reservedSegmentOf('lead.prototype.x')).toBe('prototype');
    expect(reservedSegmentOf('a.b.constructor')).toBe('constructor');
    for (const path of ['nome', 'lead.phone', '__proto', 'constructors', 'toString', 'lead.__proto__x']) {
      expect(reservedSegmentOf(path), path).toBeUndefined();
    }
  });
});

describe('withoutReservedKeys', () => {
  it('leaves out every reserved key at any depth, with a warning at its path, in document order', () => {
    const sent = JSON.parse(
      '{"a":1,"__proto__":{"x":1},"lead":{"constructor":"c","list":[{"prototype":2,"v":3}],"ok":true}}',
    );
    const { value, warnings } = withoutReservedKeys(sent);
    expect(JSON.stringify(value)).toBe('{"a":1,"lead":{"list":[{"v":3}],"ok":true}}');
    expect(warnings.map((w) => [w.path, w.code])).toEqual([
      ['__proto__', 'reserved_key'],
      ['lead.constructor', 'reserved_key'],
      ['lead.list.0.prototype', 'reserved_key'],
    ]);
    expect(warnings[0]?.message).toMatch(/^Left out: "__proto__" is a reserved name/);
    // The body as sent is untouched (the event log shows it), and the copy has no prototype.
    expect(Object.hasOwn(sent, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Array.isArray((value as { lead: { list: unknown } }).lead.list)).toBe(true);
  });

  it('returns a body without reserved keys as it is, and handles the deepest body ingest takes', () => {
    const plain = { a: { b: [1, { c: null }] } };
    expect(withoutReservedKeys(plain)).toEqual({ value: plain, warnings: [] });
    expect(withoutReservedKeys(plain).value).toBe(plain);
    let deep: unknown = JSON.parse('{"constructor":1,"v":2}');
    for (let i = 0; i < MAX_DEPTH - 1; i++) deep = { d: deep };
    const { warnings } = withoutReservedKeys(deep);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.path.split('.')).toHaveLength(MAX_DEPTH);
  });
  it('warns for the first ten left out, then counts the rest in one warning', () => {
    const sent = JSON.parse(`[${Array.from({ length: 5000 }, () => '{"constructor":1,"v":2}').join(',')}]`);
    const { value, warnings } = withoutReservedKeys(sent);
    expect(warnings).toHaveLength(MAX_RESERVED_WARNINGS + 1);
    expect(warnings[9]?.path).toBe('9.constructor');
    expect(warnings[10]).toEqual({
      path: '',
      code: 'reserved_key',
      params: { more: 4990 },
      message: 'Left out: 4990 more keys named __proto__, prototype or constructor.',
    });
    expect((value as unknown[]).length).toBe(5000);
  });
});

describe('ownVar', () => {
  it('reads an own variable, and never one only a prototype holds', () => {
    expect(ownVar({ ADMIN_TOKEN: 't' }, 'ADMIN_TOKEN')).toBe('t');
    const inherited = Object.create({ ADMIN_TOKEN: 'planted' }) as { ADMIN_TOKEN?: string };
    expect(inherited.ADMIN_TOKEN).toBe('planted');
    expect(ownVar(inherited, 'ADMIN_TOKEN')).toBeUndefined();
  });
});
