import type { z } from '@hono/zod-openapi';
import { CompanyQuery, companySorts } from '../src/contracts/companies';
import { ContactQuery, contactSorts } from '../src/contracts/contacts';
import { DealQuery, dealSorts } from '../src/contracts/deals';
import { ImportListQuery, importSorts } from '../src/contracts/imports';
import { TaskCategoryQuery, TaskQuery, taskSorts } from '../src/contracts/tasks';
import { UserQuery, userSorts } from '../src/contracts/users';
import {
  deliverySorts,
  endpointSorts,
  WebhookDeliveryQuery,
  WebhookEndpointQuery,
} from '../src/contracts/webhook-endpoints';
import {
  eventSorts,
  InboundWebhookQuery,
  WebhookEventQuery,
  webhookSorts,
} from '../src/webhooks/contract/schemas';
import { call, create, type Json, json, newAccount, newWebhook, postEvent } from './helpers';
import { deref } from './openapi';

/** An account with one row of every resource, linked to each other, for the filters to name. */
export async function seededAccount() {
  const { id, key } = await newAccount();
  const user = await create(key, '/v1/users', { name: 'Ana Souza', email: 'ana@example.com' });
  const company = await create(key, '/v1/companies', {
    name: 'Auto Lima',
    cnpj: '11.222.333/0001-81',
    owner_id: user.id,
    segment: 'Varejo',
    follower_ids: [user.id],
  });
  const contact = await create(key, '/v1/contacts', {
    name: 'Bruno Lima',
    email: 'bruno@example.com',
    phone: '+5511987654321',
    company_id: company.id,
    owner_id: user.id,
  });
  const deal = await create(key, '/v1/deals', {
    name: 'Onix LT',
    company_id: company.id,
    contact_id: contact.id,
    owner_id: user.id,
  });
  const task = await create(key, '/v1/tasks', {
    deal_id: deal.id,
    name: 'Call back',
    category: 'Ligação',
    due_date: '2026-12-01T10:00:00-03:00',
    owner_id: user.id,
  });
  const webhook = await newWebhook(key, { name: 'Site', fields: [{ key: 'nome', type: 'string' }] });
  await postEvent(webhook.path, { nome: 'Ana', __fault: 'send' });
  // An outbound endpoint with a delivery in its log (a ping the test receiver has no box for: 404).
  const endpoint = await create(key, '/v1/webhook-endpoints', {
    url: 'https://receiver.example/seeded',
    event_types: ['*'],
  });
  await call(`/v1/webhook-endpoints/${endpoint.id}/test`, { method: 'POST', key });
  await cancelledImport(key);
  const ids = {
    user: user.id,
    company: company.id,
    contact: contact.id,
    deal: deal.id,
    task: task.id,
    webhook: webhook.id,
    endpoint: endpoint.id,
  };
  return {
    accountId: id,
    key,
    ids: ids as Record<keyof typeof ids, number>,
    hookPath: webhook.path as string,
  };
}

/** An import of one deal, cancelled at once: a row of the imports list that writes nothing. */
async function cancelledImport(key: string): Promise<void> {
  const res = await call('/v1/imports?resource=deals', {
    method: 'POST',
    key,
    body: 'name\r\nImported deal\r\n',
    headers: { 'Content-Type': 'text/csv' },
  });
  const { id } = (await json(res)).data;
  await call(`/v1/imports/${id}/cancel`, { method: 'POST', key });
}

/** A second row of everything, so every list has a next page. */
export async function secondRows({ key, hookPath, ids }: Seeded): Promise<void> {
  await cancelledImport(key);
  await create(key, '/v1/webhook-endpoints', { url: 'https://receiver.example/second', event_types: ['*'] });
  await call(`/v1/webhook-endpoints/${ids.endpoint}/test`, { method: 'POST', key });
  const deal = await create(key, '/v1/deals', { name: 'Second deal' });
  await create(key, '/v1/users', { name: 'Bia', email: 'bia@example.com' });
  await create(key, '/v1/companies', { name: 'Beta', cnpj: '12.ABC.345/01DE-35' });
  await create(key, '/v1/contacts', { name: 'Caio' });
  await create(key, '/v1/tasks', { deal_id: deal.id, name: 'Undated', category: 'E-mail' });
  await newWebhook(key, { name: 'Form' });
  await postEvent(hookPath, { nome: 'Bia', __fault: 'send' });
}

/** The list's path for the seeded account (a webhook's events are under its id). */
export const pathOf = (list: List, ids: Seeded['ids']): string =>
  list.path.replace('{webhook}', String(ids.webhook)).replace('{endpoint}', String(ids.endpoint));

export type Seeded = Awaited<ReturnType<typeof seededAccount>>;

const dates = (field: string) =>
  Object.fromEntries(['gte', 'lte', 'gt', 'lt'].map((op) => [`${field}__${op}`, '2026-03-05']));

type List = {
  path: string;
  query: z.ZodObject;
  sorts: readonly string[];
  /** A value for every filter of the list, naming the seeded rows where it takes ids. */
  filters: (ids: Seeded['ids']) => Record<string, string>;
};

/** Every /v1 list, its filters and its sorts. */
export const lists: List[] = [
  {
    path: '/v1/users',
    query: UserQuery,
    sorts: Object.keys(userSorts),
    filters: () => ({
      deleted: 'true',
      email: 'ana@example.com',
      external_id: 'erp-user-1',
      name__contains: 'souza',
      ...dates('created_at'),
    }),
  },
  {
    path: '/v1/companies',
    query: CompanyQuery,
    sorts: Object.keys(companySorts),
    filters: (ids) => ({
      deleted: 'true',
      name: 'auto lima',
      name__contains: 'lima',
      cnpj: '11222333000181',
      owner_id: String(ids.user),
      external_id: 'erp-company-1',
      segment: 'varejo',
      segment__contains: 'arej',
      ...dates('created_at'),
    }),
  },
  {
    path: '/v1/contacts',
    query: ContactQuery,
    sorts: Object.keys(contactSorts),
    filters: (ids) => ({
      deleted: 'true',
      company_id: String(ids.company),
      owner_id: String(ids.user),
      email: 'bruno@example.com',
      phone: '+5511987654321',
      external_id: 'erp-contact-1',
      name__contains: 'bruno',
      ...dates('created_at'),
    }),
  },
  {
    path: '/v1/deals',
    query: DealQuery,
    sorts: Object.keys(dealSorts),
    filters: (ids) => ({
      deleted: 'true',
      company_id: String(ids.company),
      contact_id: String(ids.contact),
      owner_id: String(ids.user),
      status: 'open,won',
      external_id: 'erp-deal-1',
      ...dates('created_at'),
    }),
  },
  {
    path: '/v1/tasks',
    query: TaskQuery,
    sorts: Object.keys(taskSorts),
    filters: (ids) => ({
      deleted: 'true',
      deal_id: String(ids.deal),
      category: 'ligação',
      owner_id: String(ids.user),
      is_completed: 'false',
      external_id: 'erp-task-1',
      ...dates('due_date'),
    }),
  },
  { path: '/v1/task-categories', query: TaskCategoryQuery, sorts: [], filters: () => ({}) },
  {
    path: '/v1/inbound-webhooks',
    query: InboundWebhookQuery,
    sorts: Object.keys(webhookSorts),
    filters: () => ({}),
  },
  {
    path: '/v1/webhook-endpoints',
    query: WebhookEndpointQuery,
    sorts: Object.keys(endpointSorts),
    filters: () => ({ deleted: 'true' }),
  },
  {
    path: '/v1/webhook-endpoints/{endpoint}/deliveries',
    query: WebhookDeliveryQuery,
    sorts: Object.keys(deliverySorts),
    filters: () => ({}),
  },
  { path: '/v1/imports', query: ImportListQuery, sorts: Object.keys(importSorts), filters: () => ({}) },
  {
    path: '/v1/inbound-webhooks/{webhook}/events',
    query: WebhookEventQuery,
    sorts: Object.keys(eventSorts),
    filters: () => ({
      status: 'pending',
      q: 'Ana Souza',
      has_warnings: 'true',
      ...dates('received_at'),
    }),
  },
];

const PAGING = new Set(['limit', 'cursor', 'sort']);

/** Each filter of `list` alone; fails when the list has a filter this catalogue has no value for. */
export function eachFilter(list: List, ids: Seeded['ids']): Record<string, string>[] {
  const values = list.filters(ids);
  const names = Object.keys(list.query.shape).filter((name) => !PAGING.has(name));
  const missing = names.filter((name) => !(name in values));
  if (missing.length) throw new Error(`${list.path}: no sample value for ${missing.join(', ')}`);
  return names.map((name) => ({ [name]: values[name] as string }));
}

/** Each sort of `list`, both directions (none for a list with one fixed order). */
export const eachSort = (list: List): string[] => list.sorts.flatMap((sort) => [sort, `-${sort}`]);

/**
 * Every `*_id` query parameter of every list in the OpenAPI document: the id filters
 * (`external_id` is text, the record's id in another system, not one of ours).
 */
export async function idFilters(): Promise<{ path: string; name: string }[]> {
  const doc = await json(await call('/openapi.json'));
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    (item.get?.parameters ?? [])
      .filter((p: Json) => p.in === 'query' && p.name.endsWith('_id') && p.name !== 'external_id')
      .map((p: Json) => ({ path, name: p.name })),
  );
}

/** What the OpenAPI document says of the list at `path`: its query parameters, sorts and row fields. */
export function documentedList(doc: Json, path: string) {
  // The catalogue names a path parameter after what it holds; the document may name it otherwise.
  const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
  const documented = Object.keys(doc.paths).find((p) => shape(p) === shape(path));
  if (!documented) throw new Error(`${path} is not documented`);
  const op = doc.paths[documented].get;
  const params: Json[] = (op.parameters ?? [])
    .map((p: Json) => deref(doc, p))
    .filter((p: Json) => p.in === 'query');
  const sort = params.find((p) => p.name === 'sort');
  const page = deref(doc, op.responses['200'].content['application/json'].schema);
  const row = deref(doc, deref(doc, page.properties.data).items);
  return {
    params: params.map((p) => p.name as string),
    sorts: (deref(doc, sort?.schema)?.enum ?? []) as string[],
    /** The sort a list without `sort` walks, from the parameter's description. */
    defaultSort: /Default `([^`]+)`/.exec(sort?.description ?? '')?.[1],
    fields: row.properties as Record<string, Json>,
  };
}
