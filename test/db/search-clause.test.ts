import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../src/core/text';
import { search, searchIndexes } from '../../src/db/search';

// The MATCH clause as it was built before the value was normalised once per search (code points
// counted by spreading each piece): the search must look up exactly the same text. Since the index
// drops combining marks (`remove_diacritics`), they split the value as U+0000 does.
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
function previousClause(column: string, value: string): string | undefined {
  const pieces = normalizeText(value)
    .split(/\0|[\u0300-\u036f]/)
    .map((piece) => [...piece]);
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a));
  const piece = longest.join('');
  if (longest.length >= 3) return `${column} : ${quoted(piece)}`;
  if (longest.length === 2) return `${column}_grams : ${quoted(`${piece}\u001f`)}`;
  if (longest.length === 1) return `${column}_grams : ${quoted(`${piece}\u001f\u001f`)}`;
  return undefined;
}

const VALUES = [
  'magalhães',
  'MAGALHÃES',
  'Ana Souza',
  'an',
  'a',
  'ΟΔΥΣΣΕΥΣ',
  '😀x',
  '😀',
  '😀😀',
  'e\u0301',
  'ab\0cde',
  'abc\0de',
  'ab\0cd',
  '\0x\0',
  '\0\0',
  '\0',
  '"; DROP',
  'a"b',
  '%_*',
  'x\u001fy',
  'ﬃ',
  'İstanbul',
];

describe('the MATCH clause of a search', () => {
  it.each(VALUES)('is the clause built before for %j', (value) => {
    const expected = previousClause('name', value);
    const found = search(searchIndexes.companies, { name: value });
    expect(found?.match?.query).toBe(expected);
    expect(found?.exact.length).toBe(1);
  });

  it('joins two columns as before', () => {
    const found = search(searchIndexes.companies, { name: 'ab\0cdé', segment: 'x' });
    expect(found?.match?.query).toBe(
      [previousClause('name', 'ab\0cdé'), previousClause('segment', 'x')].join(' AND '),
    );
  });
});
