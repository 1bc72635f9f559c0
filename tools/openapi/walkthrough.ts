// The README walk-through through a client generated from /openapi.json (openapi-typescript types,
// openapi-fetch calls). `npm run openapi` type-checks it: a request the document types wrongly (a
// required field that has a default, a filter typed as a number) fails the build; and
// test/http/generated-client.test.ts runs it against the Worker.
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

type Webhook = components['schemas']['InboundWebhookCreate'];

/** The README's webhook configuration, as sent: fields and actions rely on their defaults. */
export const concessionaria = (owner: number): Webhook => ({
  name: 'Concessionária',
  fields: [
    { key: 'nome', type: 'string', required: true, target: 'contact.name' },
    { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
    { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
    { key: 'data_compra', type: 'date', required: true },
  ],
  flows: [
    { action: 'upsert_contact', match_on: ['phone'] },
    { action: 'create_deal', name: '{{nome}} - {{veiculo}}', owner: { user_id: owner } },
    {
      action: 'create_task',
      name: 'Revisão',
      category: 'Pós-venda',
      due: { from: 'data_compra', days: 365 },
      owner: { user_id: owner },
    },
  ],
});

/** Fails with the problem's detail; otherwise the response's data. */
function ok<T>(result: { data?: { data: T }; error?: { detail: string } }): T {
  if (!result.data) throw new Error(result.error?.detail ?? 'no data');
  return result.data.data;
}

export async function walkThrough(
  baseUrl: string,
  adminToken: string,
  fetch?: (request: Request) => Promise<Response>,
) {
  const admin = createClient<paths>({ baseUrl, fetch, headers: { Authorization: `Bearer ${adminToken}` } });
  // 1. An account and its first API key.
  const { api_key } = ok(await admin.POST('/admin/accounts', { body: { name: 'Acme' } }));
  const api = createClient<paths>({ baseUrl, fetch, headers: { Authorization: `Bearer ${api_key.key}` } });

  // 2. A user of the account.
  const user = ok(await api.POST('/v1/users', { body: { name: 'Ana Souza', email: 'ana@acme.com' } }));

  // 3. A contact owned by that user, then a deal for the contact.
  const contact = ok(
    await api.POST('/v1/contacts', {
      body: { name: 'Bruno Lima', phone: '(11) 98765-4321', owner_id: user.id },
    }),
  );
  const deal = ok(
    await api.POST('/v1/deals', {
      body: { name: 'Onix LT', contact_id: contact.id, owner_id: user.id, value: 89900 },
    }),
  );

  // 4. A company the contact works for, followed by the user; a task on the deal.
  const company = ok(
    await api.POST('/v1/companies', {
      body: { name: 'Auto Lima', cnpj: '12.ABC.345/01DE-35', owner_id: user.id, follower_ids: [user.id] },
    }),
  );
  ok(
    await api.PUT('/v1/contacts/{id}', {
      params: { path: { id: contact.id } },
      body: { company_id: company.id },
    }),
  );
  const task = ok(
    await api.POST('/v1/tasks', {
      body: {
        deal_id: deal.id,
        name: 'Call back',
        category: 'Ligação',
        due_date: '2026-12-01T10:00:00-03:00',
        owner_id: user.id,
      },
    }),
  );
  const ownerIds: number[] = task.owner_ids;

  // 5. Lists, filters, sorting, pages.
  const deals = await api.GET('/v1/deals', {
    params: { query: { status: 'open', sort: '-created_at', limit: 10 } },
  });
  const open: components['schemas']['Deal'][] = deals.data?.data ?? [];
  const next: string | null = deals.data?.meta.next_cursor ?? null;
  const tasks = await api.GET('/v1/tasks', {
    params: { query: { owner_id: String(user.id), is_completed: 'false', sort: 'due_date' } },
  });
  const categories = await api.GET('/v1/task-categories');

  // The inbound webhook of the README, and its event log.
  const webhook = ok(await api.POST('/v1/inbound-webhooks', { body: concessionaria(user.id) }));
  // Null for a key without webhooks:update (the token is a write credential); this one has full access.
  const url: string | null = webhook.url;
  const events = await api.GET('/v1/inbound-webhooks/{id}/events', { params: { path: { id: webhook.id } } });
  const payloads: (Record<string, unknown> | null)[] = (events.data?.data ?? []).map(
    (event) => event.payload,
  );

  // 8. A read-only key, and what it may do.
  const reader = ok(
    await api.POST('/v1/api-keys', { body: { name: 'Reporting (read-only)', scopes: ['*:read'] } }),
  );
  const readerApi = createClient<paths>({
    baseUrl,
    fetch,
    headers: { Authorization: `Bearer ${reader.key}` },
  });
  const me = ok(await readerApi.GET('/v1/me'));
  const refused = await readerApi.POST('/v1/users', { body: { name: 'Eve', email: 'eve@acme.com' } });
  const requiredScope: string | undefined = refused.error?.required_scope;

  return { user, company, task, ownerIds, open, next, tasks, categories, url, payloads, me, requiredScope };
}
