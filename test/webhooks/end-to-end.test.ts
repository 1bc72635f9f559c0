import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import worker from '../../src/index';
import { call, create, json, newAccount, shardOfAccount } from '../helpers';

it('turns the example body into a contact, a deal and a task due 365 days after data_compra', async () => {
  // On shard 2, so the message must name its shard (one without means shard 0, as before shards).
  const { id, key } = await newAccount('Acme', 2);
  const user = await create(key, '/v1/users', { name: 'Vendedor', email: 'v@x.com' });
  const hook = await create(key, '/v1/inbound-webhooks', {
    name: 'Site',
    fields: [
      { key: 'nome', type: 'string', required: true, target: 'contact.name' },
      { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
      { key: 'veiculo', type: 'string', target: 'contact.custom_fields.veiculo' },
      { key: 'data_compra', type: 'date' },
    ],
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: '{{nome}} - {{veiculo}}', owner: { round_robin: [user.id] } },
      {
        action: 'create_task',
        name: 'Revisão',
        category: 'Pós-venda',
        due: { from: 'data_compra', days: 365 },
        owner: { user_id: user.id },
      },
    ],
  });
  const path = new URL(hook.url).pathname;
  const res = await call(path, {
    method: 'POST',
    body: { nome: 'Ana Souza', telefone: '+55 11 98765-4321', veiculo: 'Onix LT', data_compra: '2024-3-5' },
  });
  expect(res.status).toBe(204);
  const events = await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }));
  expect(events.data).toHaveLength(1);
  const batch = createMessageBatch('crm-events', [
    {
      id: 'a',
      timestamp: new Date(),
      attempts: 1,
      body: { event_id: events.data[0].id, shard: shardOfAccount(id) },
    },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  expect(result.explicitAcks).toEqual(['a']);
  const [event] = (await json(await call(`/v1/inbound-webhooks/${hook.id}/events`, { key }))).data;
  expect(event).toMatchObject({ status: 'processed', attempts: 1, error: null });
  const { contact_id, deal_id, task_ids } = event.result;
  const contact = (await json(await call(`/v1/contacts/${contact_id}`, { key }))).data;
  expect(contact).toMatchObject({
    name: 'Ana Souza',
    phone: '+5511987654321',
    custom_fields: { veiculo: 'Onix LT' },
  });
  const deal = (await json(await call(`/v1/deals/${deal_id}`, { key }))).data;
  expect(deal).toMatchObject({ name: 'Ana Souza - Onix LT', contact_id, owner_id: user.id });
  const task = (await json(await call(`/v1/tasks/${task_ids[0]}`, { key }))).data;
  expect(task).toMatchObject({
    name: 'Revisão',
    deal_id,
    category: 'Pós-venda',
    owner_ids: [user.id],
    // 2025-03-05 in São Paulo, the account's zone by default: its midnight is 03:00 UTC.
    due_date: '2025-03-05T03:00:00.000Z',
  });
});
