import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/core/event-types';
import {
  accountsOnShard,
  call,
  create,
  expectProblem,
  expectReadOnly,
  json,
  keyWith,
  newAccount,
} from '../helpers';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

const URL_OK = 'https://hooks.example.com/crm';
const body = { url: URL_OK, event_types: ['company.*', 'deal.updated'] };

describe('/v1/webhook-endpoints', () => {
  it('creates an endpoint and shows its whsec_ secret only in the create answer', async () => {
    const { key } = await newAccount();
    const res = await call('/v1/webhook-endpoints', { method: 'POST', key, body });
    expect(res.status).toBe(201);
    const { data } = await json(res);
    expect(data).toMatchObject({ url: URL_OK, event_types: ['company.*', 'deal.updated'], enabled: true });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.headers.get('Location')).toContain(`/v1/webhook-endpoints/${data.id}`);
    const read = await json(await call(`/v1/webhook-endpoints/${data.id}`, { key }));
    expect(read.data).not.toHaveProperty('secret');
    const listed = await json(await call('/v1/webhook-endpoints', { key }));
    expect(JSON.stringify(listed)).not.toContain(data.secret);
    const put = await json(
      await call(`/v1/webhook-endpoints/${data.id}`, { method: 'PUT', key, body: { enabled: false } }),
    );
    expect(put.data).toMatchObject({ enabled: false, url: URL_OK });
    expect(JSON.stringify(put)).not.toContain(data.secret);
  });

  it('changes only what an update sends', async () => {
    const { key } = await newAccount();
    const made = await create(key, '/v1/webhook-endpoints', { ...body, description: 'ERP' });
    const res = await call(`/v1/webhook-endpoints/${made.id}`, {
      method: 'PUT',
      key,
      body: { event_types: ['*', '*'] },
    });
    expect((await json(res)).data).toMatchObject({ event_types: ['*'], description: 'ERP', url: URL_OK });
  });

  it('refuses unknown event types, the secret as a field, and an empty subscription', async () => {
    const { key } = await newAccount();
    for (const event_types of [['company.merged'], ['nothing.*'], [], ['__proto__']]) {
      const res = await call('/v1/webhook-endpoints', {
        method: 'POST',
        key,
        body: { url: URL_OK, event_types },
      });
      await expectProblem(res, 422, 'validation_failed');
    }
    await expectReadOnly(
      await call('/v1/webhook-endpoints', { method: 'POST', key, body: { ...body, secret: 'whsec_x' } }),
      ['secret'],
    );
  });

  it('deletes to the trash and restores, and 404s another account', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const made = await create(a.key, '/v1/webhook-endpoints', body);
    const path = `/v1/webhook-endpoints/${made.id}`;
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { enabled: false }],
      ['DELETE', '', undefined],
      ['POST', '/restore', undefined],
      ['POST', '/rotate-secret', {}],
    ] as const) {
      await expectProblem(await call(path + suffix, { method, key: b.key, body: payload }), 404, 'not_found');
    }
    expect((await call(path, { method: 'DELETE', key: a.key })).status).toBe(204);
    await expectProblem(await call(path, { key: a.key }), 404, 'not_found');
    const restored = await call(`${path}/restore`, { method: 'POST', key: a.key });
    expect((await json(restored)).data.deleted_at).toBeNull();
  });

  it('holds 50 live endpoints per account', async () => {
    const { id: accountId, key } = await newAccount();
    // Planted straight in D1 (the cap is the trigger's, whatever path inserts): 50 live rows.
    const now = Date.now();
    await env.DB.batch(
      Array.from({ length: 50 }, () =>
        env.DB.prepare(
          "INSERT INTO webhook_endpoints (account_id, url, event_types, secret, created_at, updated_at) VALUES (?, ?, '[\"*\"]', 'whsec_AA==', ?, ?)",
        ).bind(accountId, URL_OK, now, now),
      ),
    );
    await expectProblem(
      await call('/v1/webhook-endpoints', { method: 'POST', key, body }),
      409,
      'webhook_endpoint_limit_reached',
    );
  });

  it('rotates the secret: the new one shown once, the old one signing for 24 hours by default', async () => {
    const { key } = await newAccount();
    const made = await create(key, '/v1/webhook-endpoints', body);
    const res = await call(`/v1/webhook-endpoints/${made.id}/rotate-secret`, {
      method: 'POST',
      key,
      body: {},
    });
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data.secret).toMatch(/^whsec_/);
    expect(data.secret).not.toBe(made.secret);
    const grace = Date.parse(data.previous_secret_expires_at) - Date.now();
    expect(grace).toBeGreaterThan(23 * 3600_000);
    expect(grace).toBeLessThanOrEqual(24 * 3600_000);
    const now = await json(
      await call(`/v1/webhook-endpoints/${made.id}/rotate-secret`, {
        method: 'POST',
        key,
        body: { grace_period: 0 },
      }),
    );
    expect(now.data.previous_secret_expires_at).toBeNull();
  });

  it('needs the webhook_endpoints scopes', async () => {
    const { id } = await newAccount();
    const reader = await keyWith(id, ['webhook_endpoints:read']);
    expect((await call('/v1/webhook-endpoints', { key: reader })).status).toBe(200);
    await expectProblem(
      await call('/v1/webhook-endpoints', { method: 'POST', key: reader, body }),
      403,
      'insufficient_scope',
    );
    const other = await keyWith(id, ['webhooks:*']);
    await expectProblem(await call('/v1/webhook-endpoints', { key: other }), 403, 'insufficient_scope');
  });
});

describe('webhook endpoint URLs', () => {
  const refused: [string, string][] = [
    ['http://hooks.example.com/x', 'https_required'],
    ['https://user:pw@hooks.example.com/x', 'url_credentials'],
    ['https://10.0.0.1/x', 'ip_literal'],
    ['https://8.8.8.8/x', 'ip_literal'],
    ['https://2130706433/x', 'ip_literal'],
    ['https://0177.0.0.1/x', 'ip_literal'],
    ['https://0x7f.1/x', 'ip_literal'],
    ['https://[::1]/x', 'ip_literal'],
    ['https://[::ffff:169.254.169.254]/x', 'ip_literal'],
    ['https://localhost/x', 'host_not_public'],
    ['https://printer.local/x', 'host_not_public'],
    ['https://db.internal/x', 'host_not_public'],
    ['https://intranet/x', 'host_not_public'],
    ['https://crm.test/v1/companies', 'own_host'],
    ['ftp://hooks.example.com/x', 'https_required'],
    ['not a url', 'invalid_url'],
    ['http://localhost:8787/x', 'https_required'],
  ];
  it.each(refused)('refuses %s at save (%s)', async (url, code) => {
    const { key } = await newAccount();
    const res = await call('/v1/webhook-endpoints', { method: 'POST', key, body: { ...body, url } });
    const problem = await expectProblem(res, 422, 'validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'url', code })]);
  });

  it('refuses a private URL on update too', async () => {
    const { key } = await newAccount();
    const made = await create(key, '/v1/webhook-endpoints', body);
    const res = await call(`/v1/webhook-endpoints/${made.id}`, {
      method: 'PUT',
      key,
      body: { url: 'https://169.254.169.254/latest' },
    });
    await expectProblem(res, 422, 'validation_failed');
  });
});

describe('the OpenAPI document', () => {
  it('describes every event type in its webhooks object (OpenAPI 3.1)', async () => {
    const doc = await json(await call('/openapi.json'));
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, 'ping'].sort());
    const created = doc.webhooks['contact.created'].post;
    expect(created.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
  });
});
