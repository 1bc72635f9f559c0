import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time';

const builtin = (ms: number) => new Date(ms).toISOString();

describe('isoTime', () => {
  it('writes every day from 1970 to 2200 as the builtin does, at its first and last ms', () => {
    const day = 86_400_000;
    for (let ms = 0; ms < Date.UTC(2200, 0, 1); ms += day) {
      expect(isoTime(ms)).toBe(builtin(ms));
      expect(isoTime(ms + day - 1)).toBe(builtin(ms + day - 1));
    }
  });

  it('matches the builtin on leap days, century years and the ends of its own range', () => {
    const cases = [
      Date.UTC(2000, 1, 29, 12, 0, 0, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29, 0, 0, 0, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(1000, 0, 1),
    ];
    for (const ms of cases) expect(isoTime(ms)).toBe(builtin(ms));
  });

  it('matches the builtin on random times of every year it writes itself', () => {
    let seed = 24;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 100_000; i++) {
      const ms = Math.floor(random() * 253_402_300_800_000);
      expect(isoTime(ms)).toBe(builtin(ms));
    }
  });

  it('leaves times outside 1970..9999 and fractions to the builtin, errors included', () => {
    for (const ms of [-1, -86_400_001, 253_402_300_800_000, 8.64e15, 1_764_000_000_000.5, -0]) {
      expect(isoTime(ms)).toBe(builtin(ms));
    }
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
