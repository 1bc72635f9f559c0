import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { accountsOnShard, call, create, expectProblem, type Json, newAccount } from '../helpers';
import { get } from './webhook-support';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const DAY = 86_400_000;

const cron = () =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' }), env);

const erase = (key: string, id: number) => call(`/v1/contacts/${id}?erase=true`, { method: 'DELETE', key });

describe('ids are never reused', () => {
  it('a contact created after the newest is erased gets a new id; a retried erase of the old one is a 404', async () => {
    const { key } = await newAccount();
    const first = await create(key, '/v1/contacts', { name: 'Ana', phone: '11987654321' });
    const erased = await create(key, '/v1/contacts', { name: 'Bia', email: 'bia@x.co' });
    expect((await erase(key, erased.id)).status).toBe(204);
    const next = await create(key, '/v1/contacts', { name: 'Caio', email: 'caio@x.co' });
    expect(next.id).toBeGreaterThan(erased.id);
    // The client's retry, its answer lost: it must never reach the next person.
    await expectProblem(await erase(key, erased.id), 404, 'not_found');
    expect(await get(key, `/v1/contacts/${next.id}`)).toEqual(next);
    expect(await get(key, `/v1/contacts/${first.id}`)).toEqual(first);
  });

  it('a row created after the newest of its table is purged by the cron gets a new id, in every table with a trash', async () => {
    const { key } = await newAccount();
    const deal = await create(key, '/v1/deals', { name: 'Base' });
    // Emails and CNPJs are unique in the account, the trash included: one each.
    const emails = ['u1@x.co', 'u2@x.co'];
    const cnpjs = ['11222333000181', '11444777000161'];
    const bodies: Record<string, () => Json> = {
      users: () => ({ name: 'U', email: emails.shift() }),
      companies: () => ({ name: 'C', cnpj: cnpjs.shift() }),
      contacts: () => ({ name: 'K' }),
      deals: () => ({ name: 'D' }),
      tasks: () => ({ name: 'T', deal_id: deal.id, category: 'Ligar' }),
    };
    for (const [table, body] of Object.entries(bodies)) {
      const purged = await create(key, `/v1/${table}`, body());
      expect((await call(`/v1/${table}/${purged.id}`, { method: 'DELETE', key })).status, table).toBe(204);
      await env.DB.prepare(`update ${table} set deleted_at = ? where id = ?`)
        .bind(Date.now() - 31 * DAY, purged.id)
        .run();
      await cron();
      expect(await env.DB.prepare(`select id from ${table} where id = ?`).bind(purged.id).first()).toBeNull();
      const next = await create(key, `/v1/${table}`, body());
      expect(next.id, table).toBeGreaterThan(purged.id);
      await expectProblem(await call(`/v1/${table}/${purged.id}/restore`, { method: 'POST', key }), 404);
    }
  });
});
