import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { accountsOnShard, call, create, newAccount } from '../helpers';
import { entriesOf, versionOf } from './helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 86_400_000;

const cron = () =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' }), env);

describe("the change journal of the cron's trash purge", () => {
  it('appends a last deleted entry for a purged record and an updated one for each record that loses it', async () => {
    const { id: accountId, key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Owner', email: 'owner@x.com' });
    const company = await create(key, '/v1/companies', {
      name: 'Acme',
      cnpj: '11222333000181',
      follower_ids: [user.id],
    });
    const contact = await create(key, '/v1/contacts', {
      name: 'Ana',
      company_id: company.id,
      owner_id: user.id,
    });
    expect((await call(`/v1/companies/${company.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(`/v1/users/${user.id}`, { method: 'DELETE', key })).status).toBe(204);
    for (const table of ['companies', 'users']) {
      await env.DB.prepare(`update ${table} set deleted_at = ? where account_id = ?`)
        .bind(Date.now() - 31 * DAY, accountId)
        .run();
    }
    await cron();

    const companyEntries = await entriesOf(accountId, 'company', company.id);
    expect(companyEntries.map((e) => [e.type, e.version, e.actor.type])).toEqual([
      ['company.created', 1, 'api_key'],
      ['company.deleted', 2, 'api_key'],
      ['company.deleted', 3, 'system'],
    ]);
    expect((await entriesOf(accountId, 'user', user.id)).at(-1)).toMatchObject({
      type: 'user.deleted',
      version: 3,
      actor: { type: 'system' },
    });
    // The contact lost its company and its owner in the same batch: one entry.
    const contactEntries = await entriesOf(accountId, 'contact', contact.id);
    expect(contactEntries.map((e) => [e.type, e.version, e.actor.type])).toEqual([
      ['contact.created', 1, 'api_key'],
      ['contact.updated', 2, 'system'],
    ]);
    expect(contactEntries[1]?.previous).toMatchObject({ companyId: company.id, ownerId: user.id });
    expect(contactEntries[1]?.data).toMatchObject({ companyId: null, ownerId: null });
    expect(await versionOf('contacts', contact.id)).toBe(2);
    // No placeholder is left behind.
    expect((await entriesOf(accountId)).filter((e) => e.data === null)).toEqual([]);
  });
});

describe('the change journal retention', () => {
  it('the cron deletes entries older than JOURNAL_RETENTION_DAYS, keeps the rest and the versions; usage counts them', async () => {
    const { id: accountId, key } = await newAccount();
    const user = await create(key, '/v1/users', { name: 'Old', email: 'old@x.com' });
    await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: { name: 'Older' } });
    const usage = async () =>
      (await (await call('/v1/usage', { key })).json<{ data: Record<string, unknown> }>()).data;
    expect(await usage()).toMatchObject({ change_journal: { entries: 2, retention_days: 30 } });
    await env.DB.prepare('update journal_entries set occurred_at = ? where account_id = ? and version = 1')
      .bind(Date.now() - 31 * DAY, accountId)
      .run();
    await cron();
    expect((await entriesOf(accountId)).map((e) => [e.type, e.version])).toEqual([['user.updated', 2]]);
    expect(await usage()).toMatchObject({ change_journal: { entries: 1 } });
    // The version goes on from the record's own, not from what is left.
    await call(`/v1/users/${user.id}`, { method: 'PUT', key, body: { name: 'Oldest' } });
    expect((await entriesOf(accountId)).map((e) => e.version)).toEqual([2, 3]);
  });
});
