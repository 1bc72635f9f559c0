import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, excelTime, unescapedCell } from '../../src/core/csv';

describe('core/csv', () => {
  it('escapes every cell OWASP names as a formula, text only', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvCell(`${start}1+1`, 'csv').replace(/^"|"$/g, '').startsWith(`'${start}`)).toBe(true);
    }
    expect(csvCell('a=b', 'csv')).toBe('a=b');
    expect(csvCell(-5, 'csv')).toBe('-5');
  });

  it('gives back every text as it was, an apostrophe before a formula included', () => {
    for (const value of ['=1+1', "'=x", "''+55", '+5511987654321', "'plain", 'a=b', '@home']) {
      expect(unescapedCell(csvCell(value, 'excel').replace(/^"|"$/g, '')), value).toBe(value);
    }
  });

  it('quotes delimiters, quotes, line breaks and edge spaces, per format', () => {
    expect(csvLine(['a,b', 'x;y', 'q"q', 'l1\nl2', ' pad', null, true], 'csv')).toBe(
      '"a,b",x;y,"q""q","l1\nl2"," pad",,true\r\n',
    );
    expect(csvLine(['a,b', 'x;y', 1234.5], 'excel')).toBe('a,b;"x;y";1234,5\r\n');
  });

  it('writes times as pt-BR Excel reads them', () => {
    expect(excelTime('2026-03-05T00:00:00.000Z')).toBe('05/03/2026');
    expect(excelTime('2026-12-31T23:59:58.000Z')).toBe('31/12/2026 23:59:58');
  });
});
