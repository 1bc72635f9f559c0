import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { walkThrough } from '../../tools/openapi/walkthrough';
import { BASE } from '../helpers';

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  it('does the README walk-through against the Worker, every response as its types say', async () => {
    const result = await walkThrough(BASE, env.ADMIN_TOKEN ?? '', (request) =>
      exports.default.fetch(request),
    );
    expect(result.user).toMatchObject({ name: 'Ana Souza', email: 'ana@acme.com' });
    expect(result.company).toMatchObject({ cnpj: '12ABC34501DE35', follower_ids: [result.user.id] });
    expect(result.ownerIds).toEqual([result.user.id]);
    expect(result.task.due_date).toBe('2026-12-01T13:00:00.000Z');
    expect(result.open.map((deal) => deal.name)).toEqual(['Onix LT']);
    expect(result.next).toBeNull();
    expect(result.tasks.data?.data.map((task) => task.id)).toEqual([result.task.id]);
    expect(result.categories.data?.data.map((category) => [category.name, category.task_count])).toEqual([
      ['Ligação', 1],
    ]);
    expect(result.url).toMatch(/^http:\/\/crm\.test\/hooks\/whk_/);
    expect(result.payloads).toEqual([]);
    expect(result.me.api_key).toMatchObject({ name: 'Reporting (read-only)', scopes: ['*:read'] });
    expect(result.requiredScope).toBe('users:insert');
  });
});
