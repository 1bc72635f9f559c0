import { describe, expect, it } from 'vitest';
import { linkedUserIds, userIdSet } from '../../src/db/links';

/** What a row's linked ids column decodes to, from the JSON array SQLite aggregated. */
const decoded = (json: string) =>
  (
    linkedUserIds('followers') as unknown as { decoder: { mapFromDriverValue(v: string): unknown } }
  ).decoder.mapFromDriverValue(json);

describe('linked user ids as a row reads them', () => {
  it('come out as a set, ascending, in whatever order SQLite aggregated them', () => {
    const cases = ['[]', '[7]', '[1,2,3]', '[3,1,2]', '[2,2]', '[1,3,3,2,1]', '[10,9]', '[1,2,10,3]'];
    for (const json of cases) expect(decoded(json)).toEqual(userIdSet(JSON.parse(json) as number[]));
    expect(decoded('[5,1,5,3]')).toEqual([1, 3, 5]);
  });
});
