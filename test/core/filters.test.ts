import { describe, expect, it } from 'vitest';
import { parseBound, parseDate, parseDateTime } from '../../src/core/filters';

describe('parseDate', () => {
  it('reads a real calendar date as the start of its UTC day', () => {
    expect(parseDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDate('2024-03-05')).toBe(Date.UTC(2024, 2, 5));
    expect(parseDate('1970-01-01')).toBe(0);
    expect(parseDate('2023-12-31')).toBe(Date.UTC(2023, 11, 31));
  });

  it.each([
    ['2023-02-29'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-04-31'],
    ['2024-01-00'],
    ['2024-01-32'],
    ['2100-02-29'],
    ['2024-3-5'],
    ['24-03-05'],
    ['2024/03/05'],
    ['2024-03-05T00:00:00Z'],
    [' 2024-03-05'],
    ['2024-03-05 '],
    [''],
    ['not a date'],
  ])('refuses %j', (value) => {
    expect(parseDate(value)).toBeUndefined();
  });

  it('accepts 29 February only in leap years', () => {
    expect(parseDate('2000-02-29')).toBe(Date.UTC(2000, 1, 29));
    expect(parseDate('1900-02-29')).toBeUndefined();
  });
});

describe('parseDateTime', () => {
  it('applies the offset', () => {
    expect(parseDateTime('2024-03-05T21:00:00-03:00')).toBe(Date.UTC(2024, 2, 6));
    expect(parseDateTime('2024-03-06T05:30:00+05:30')).toBe(Date.UTC(2024, 2, 6));
    expect(parseDateTime('2024-03-06T00:00:00+00:00')).toBe(Date.UTC(2024, 2, 6));
  });

  it('reads milliseconds and Z', () => {
    expect(parseDateTime('2024-03-05T21:00:00.123Z')).toBe(Date.UTC(2024, 2, 5, 21, 0, 0, 123));
    expect(parseDateTime('2024-03-05T21:00:00Z')).toBe(Date.UTC(2024, 2, 5, 21));
    expect(parseDateTime('2024-03-05T21:00:00.5Z')).toBe(Date.UTC(2024, 2, 5, 21, 0, 0, 500));
  });

  it('truncates precision beyond milliseconds', () => {
    expect(parseDateTime('2024-03-05T21:00:00.123456Z')).toBe(Date.UTC(2024, 2, 5, 21, 0, 0, 123));
    expect(parseDateTime('2024-03-05T21:00:00.999999999-03:00')).toBe(Date.UTC(2024, 2, 6, 0, 0, 0, 999));
  });

  it('keeps years 0-99 as they are', () => {
    const year50 = new Date(0);
    year50.setUTCFullYear(50, 0, 1);
    expect(parseDate('0050-01-01')).toBe(year50.getTime());
    expect(parseDateTime('0050-01-01T00:00:00Z')).toBe(year50.getTime());
  });

  it('reads a date-time without seconds', () => {
    expect(parseDateTime('2024-03-05T21:15Z')).toBe(Date.UTC(2024, 2, 5, 21, 15));
  });

  it('does not take a bare date for a date-time', () => {
    expect(parseDateTime('2024-03-05')).toBeUndefined();
  });

  it.each([
    ['2024-03-05T25:00:00Z'],
    ['2024-03-05T24:00:00Z'],
    ['2024-03-05T21:60:00Z'],
    ['2024-03-05T21:00:60Z'],
    ['2023-02-29T12:00:00Z'],
    ['2024-13-01T00:00:00Z'],
    ['2024-03-05T21:00:00'],
    ['2024-03-05 21:00:00Z'],
    ['2024-03-05T21Z'],
    ['2024-03-05T21:00:00.Z'],
    [''],
    ['yesterday'],
  ])('refuses %j', (value) => {
    expect(parseDateTime(value)).toBeUndefined();
  });
});

describe('parseBound', () => {
  const day = Date.UTC(2024, 2, 5);

  it('bounds a bare date at the start of its UTC day for gte and lt, at its end for lte and gt', () => {
    expect(parseBound('gte', '2024-03-05')).toEqual({ op: 'gte', ms: day });
    expect(parseBound('lt', '2024-03-05')).toEqual({ op: 'lt', ms: day });
    expect(parseBound('lte', '2024-03-05')).toEqual({ op: 'lte', ms: day + 86_400_000 - 1 });
    expect(parseBound('gt', '2024-03-05')).toEqual({ op: 'gt', ms: day + 86_400_000 - 1 });
  });

  it('rounds a sub-millisecond date-time up for gte and lt only, as stored times are whole ms', () => {
    const value = '2024-03-05T00:00:00.0005Z';
    expect(parseBound('gte', value)).toEqual({ op: 'gte', ms: day + 1 });
    expect(parseBound('lt', value)).toEqual({ op: 'lt', ms: day + 1 });
    expect(parseBound('lte', value)).toEqual({ op: 'lte', ms: day });
    expect(parseBound('gt', value)).toEqual({ op: 'gt', ms: day });
    expect(parseBound('gte', '2024-03-05T00:00:00.0010Z')).toEqual({ op: 'gte', ms: day + 1 });
  });

  it.each([['2024-03-05T10:00'], ['2024-02-30'], ['yesterday'], ['']])('refuses %j', (value) => {
    expect(parseBound('gte', value)).toBeUndefined();
  });
});
