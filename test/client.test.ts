import { exports } from 'cloudflare:workers';
import { hc } from 'hono/client';
import { describe, expect, it } from 'vitest';
import type { AppType } from '../src/index';
import { BASE, newAccount } from './helpers';

describe('typed client (hc<AppType>)', () => {
  it('creates and reads a user with typed requests and responses', async () => {
    const { key } = await newAccount();
    const client = hc<AppType>(BASE, {
      fetch: (input: RequestInfo | URL, init?: RequestInit) =>
        exports.default.fetch(new Request(input, init)),
      headers: { Authorization: `Bearer ${key}` },
    });
    const created = await client.v1.users.$post({ json: { name: 'Typed', email: 'typed@example.com' } });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    const { data } = await created.json();
    const got = await client.v1.users[':id'].$get({ param: { id: String(data.id) } });
    expect(got.status).toBe(200);
    if (got.status !== 200) return;
    expect((await got.json()).data.email).toBe('typed@example.com');
  });
});
