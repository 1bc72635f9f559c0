import { describe, expect, it } from 'vitest';
import { call, expectProblem, idsOf, json, keyWith, newAccount, roundTrips } from '../../helpers';
import { runImport } from './import-support';

describe('GET /v1/imports', () => {
  it("the account's imports newest first, in keyset pages; another account's never listed", async () => {
    const { key } = await newAccount();
    const other = await newAccount('Other');
    const mine = [];
    for (const name of ['Um', 'Dois', 'Três']) {
      mine.push((await runImport(key, 'resource=contacts&mode=create', `Nome\n${name}\n`)).id);
    }
    await runImport(other.key, 'resource=contacts', 'Nome\nAlheio\n');
    const first = await call('/v1/imports?limit=2', { key });
    expect(first.status).toBe(200);
    expect(roundTrips(first)).toBe(1);
    const page = await json(first);
    expect(idsOf(page)).toEqual([mine[2], mine[1]]);
    expect(page.data[0]).toMatchObject({ status: 'completed', resource: 'contacts', counts: { created: 1 } });
    expect(first.headers.get('Link')).toContain('rel="next"');
    const next = await json(await call(`/v1/imports?limit=2&cursor=${page.meta.next_cursor}`, { key }));
    expect(idsOf(next)).toEqual([mine[0]]);
    expect(next.meta.next_cursor).toBeNull();
    const oldest = await json(await call('/v1/imports?sort=created_at', { key }));
    expect(idsOf(oldest)).toEqual(mine);
    await expectProblem(await call('/v1/imports?cursor=nope', { key }), 400, 'invalid_cursor');
    await expectProblem(await call('/v1/imports?status=x', { key }), 400);
  });

  it('lists only the imports the key may read: its resources, in the mode its scopes allow', async () => {
    const { id, key } = await newAccount();
    const companies = await runImport(key, 'resource=companies&mode=create', 'Razão social\nPadaria\n');
    const created = await runImport(key, 'resource=contacts&mode=create', 'Nome\nAna\n');
    const upserted = await runImport(key, 'resource=contacts', 'Nome\nBia\n');
    const inserting = await keyWith(id, ['contacts:insert']);
    expect(idsOf(await json(await call('/v1/imports', { key: inserting })))).toEqual([created.id]);
    const both = await keyWith(id, ['contacts:*']);
    expect(idsOf(await json(await call('/v1/imports', { key: both })))).toEqual([upserted.id, created.id]);
    expect(idsOf(await json(await call('/v1/imports', { key })))).toEqual([
      upserted.id,
      created.id,
      companies.id,
    ]);
  });
});
