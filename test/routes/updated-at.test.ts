import { describe, expect, it } from 'vitest';
import { insertRow, json, ms, newAccount, resource } from '../helpers';

// One mechanism (db/updated.ts) serves every resource; each is checked through its own route.
const plain = (accountId: number, at: number) => ({
  account_id: accountId,
  name: 'Future',
  name_norm: 'future',
  custom_fields: '{}',
  created_at: at,
  updated_at: at,
});

const rows = {
  users: (accountId: number, at: number) => {
    const { custom_fields: _, ...row } = plain(accountId, at);
    return { ...row, email: 'f@example.com', email_norm: 'f@example.com' };
  },
  contacts: plain,
  deals: plain,
};

describe.each(Object.entries(rows))('%s: updated_at', (table, row) => {
  const { get, put } = resource(`/v1/${table}`);

  it('still increases on PUT when the stored updated_at is ahead of the clock', async () => {
    const { id: accountId, key } = await newAccount();
    const id = await insertRow(table, row(accountId, Date.now() + 3_600_000));
    const stored = await get(key, id);
    const first = await put(key, id, { name: 'Future 1' });
    expect(first.status).toBe(200);
    const once = (await json(first)).data;
    expect(ms(once.updated_at)).toBeGreaterThan(ms(stored.updated_at));
    const twice = (await json(await put(key, id, { name: 'Future 2' }))).data;
    expect(ms(twice.updated_at)).toBeGreaterThan(ms(once.updated_at));
    expect(twice.created_at).toBe(stored.created_at);
  });
});
