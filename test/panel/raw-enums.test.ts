import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/core/event-types';
import { deliveryStatuses } from '../../src/core/statuses';
import type { Lang } from '../../src/panel/i18n';
import { panelRouter } from '../../src/panel/routes';
import { accountsOnShard, create, insertRow, newAccount, newWebhook, postEvent } from '../helpers';
import { page, panel, signIn } from './browser';
import { ptLeftovers, rawEnums, visibleTexts } from './visible-text';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

// Every page of the panel, for a configured webhook with events in every status, in both languages:
// no API enum (`upsert_contact`, `processed`, `phone`, `equals`) shows as visible text. Pages added
// later are walked too: the routes come from the router itself.

const routes = panelRouter(() => Promise.reject(new Error('not called'))).routes.filter(
  (r) =>
    r.method === 'GET' && !r.path.includes('*') && !r.path.includes('/static/') && !r.path.includes(':lang'),
);

/** A webhook as a dealership sets it up, with one event in every status. */
async function configured() {
  const { id: accountId, key } = await newAccount();
  const hook = await newWebhook(key, {
    mode: 'test',
    fields: [
      { key: 'lead.nome', type: 'string', required: true, target: 'contact.name' },
      { key: 'lead.telefone', type: 'phone', required: true, target: 'contact.phone' },
      { key: 'lead.email', type: 'email', target: 'contact.email' },
      { key: 'lead.valor', type: 'number', target: 'deal.value' },
      { key: 'lead.quando', type: 'date', formats: ['DD/MM/YYYY'] },
      { key: 'lead.ativo', type: 'boolean' },
      { key: 'lead.cnpj', type: 'cnpj', target: 'company.cnpj' },
    ],
    flows: [
      { action: 'upsert_contact', match_on: ['phone', 'email'] },
      { action: 'upsert_company' },
      {
        action: 'create_deal',
        name: 'Lead site - {{lead.nome}}',
        when: { field: 'lead.valor', op: 'exists' },
      },
      {
        action: 'create_task',
        name: 'Ligar',
        category: 'Ligação',
        when: { field: 'lead.nome', op: 'not_equals', value: 'teste' },
        due: { from: 'received_at', days: 1, hours: 0 },
      },
    ],
  });
  const lead = {
    nome: 'Ana',
    telefone: '11 91234-5678',
    email: 'ana@example.com',
    valor: 'caro',
    cnpj: '11.222.333/0001-81',
  };
  expect((await postEvent(hook.url, { lead })).status).toBe(204);
  const bad = await postEvent(hook.url, { lead: { nome: 'Sem telefone', telefone: 'x' } });
  expect(bad.status).toBe(400);
  const row = {
    account_id: accountId,
    webhook_id: hook.id,
    mode: 'production',
    payload: '{}',
    headers: '{}',
  };
  const at = Date.now();
  const events = [
    await insertRow('inbound_events', { ...row, status: 'pending', received_at: at, queued_at: at }),
    await insertRow('inbound_events', {
      ...row,
      status: 'failed',
      attempts: 3,
      error:
        'The mapping changed and the event no longer fits it: lead.telefone: Expected a Brazilian or international (+CC) phone number.',
      received_at: at,
      queued_at: at,
    }),
    await insertRow('inbound_events', {
      ...row,
      status: 'processed',
      attempts: 1,
      received_at: at,
      queued_at: at,
      processed_at: at,
    }),
  ];
  return { key, hook, events };
}

describe('no enum shows raw', () => {
  it('finds developer wording in Portuguese text, and not in code or values', () => {
    const html =
      '<p>Cada chave é um caminho com pontos no JSON</p><p>Deve ser do tipo date</p><p>DD/MM/YYYY</p><p>Esperado uma data</p><p>Fuso: America/Sao_Paulo</p><code>YYYY</code><input value="America/Sao_Paulo">';
    expect(ptLeftovers(visibleTexts(html))).toHaveLength(5);
    expect(ptLeftovers(visibleTexts('<p>Data no formato DD/MM/AAAA, horário de São Paulo</p>'))).toEqual([]);
  });

  it('finds them in a page that shows them, and not in code, values or URLs', () => {
    const html =
      '<p>Status: processed</p><td>pending: 2, failed: 1</td><option value="upsert_contact">Contato (upsert_contact)</option><code>phone</code><a href="/x?status=failed">Falhou</a>';
    expect(rawEnums(visibleTexts(html)).sort()).toEqual(['failed', 'pending', 'processed', 'upsert_contact']);
    expect(rawEnums(visibleTexts('<p>Switch to test</p><input value="email"><pre>"equals"</pre>'))).toEqual(
      [],
    );
  });

  it('on every page of a configured webhook with events, in both languages; every cell has its data-label', async () => {
    const { key, hook, events } = await configured();
    const session = await signIn(key);
    const paths = routes.flatMap((r) =>
      r.path.includes(':event_id')
        ? events.map((e) => r.path.replace(':id', String(hook.id)).replace(':event_id', String(e)))
        : r.path.includes(':step')
          ? [2, 3, 4, 5, 6].map((n) => r.path.replace(':id', String(hook.id)).replace(':step', String(n)))
          : [r.path.replace(':id', String(hook.id))],
    );
    paths.push(`/webhooks/${hook.id}/events?status=failed`, `/webhooks/${hook.id}?sample=1`);
    expect(paths.length).toBeGreaterThanOrEqual(10);
    for (const lang of ['pt-BR', 'en'] as Lang[]) {
      const cookie = `${session}; lang=${lang}`;
      const pages = await Promise.all(
        paths.map(async (path) => [path, await panel(`/panel${path}`, { cookie })] as const),
      );
      // The 422 of a configuration the checks refuse shows every message kind next to its field.
      const refused = await panel(`/panel/webhooks/${hook.id}`, {
        cookie,
        form: {
          name: 'Leads',
          'fields.0.key': 'lead.email',
          'fields.0.type': 'string',
          'fields.0.target': 'contact.email',
          'fields.1.key': 'lead.quando',
          'fields.1.type': 'string',
          'fields.1.formats': 'DD/MM/AAAA',
          'fields.2.key': 'lead.dia',
          'fields.2.type': 'date',
          'fields.2.formats': 'DD/QQ',
          'flows.0.action': 'create_task',
          'flows.0.name': '{{ninguem}}',
          'flows.0.category': 'x',
          'flows.1.action': 'create_deal',
          'flows.2.action': 'upsert_contact',
          'flows.2.match_on': 'phone',
          'flows.2.when.field': 'lead.email',
          'flows.2.when.op': 'equals',
        },
      });
      if (refused.status !== 422) throw new Error((await refused.text()).slice(-1500));
      for (const [path, res] of [...pages, ['422 form', refused] as const]) {
        if (res.status >= 300 && res.status < 400) continue;
        const html = await res.text();
        expect(html, path).toContain(`<html lang="${lang}">`);
        expect(rawEnums(visibleTexts(html)), `${lang} ${path}`).toEqual([]);
        if (lang === 'pt-BR') expect(ptLeftovers(visibleTexts(html)), `${path}`).toEqual([]);
        // Each cell names its column, which the stacked cards of a phone show (assets.ts).
        expect(
          html.match(/<td(?![^>]*\sdata-label="[^"]+")[^>]*>/g),
          `${path} td without data-label`,
        ).toBeNull();
      }
    }
  });

  it('on every outbound endpoint page, with a delivery in every status and the CRM’s reason to turn it off', async () => {
    const { id: accountId, key } = await newAccount();
    const endpoint = await create(key, '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/crm',
      event_types: ['*', 'company.*', 'task.completed'],
      enabled: false,
    });
    await env.DB.prepare("UPDATE webhook_endpoints SET disabled_reason = 'failing' WHERE id = ?")
      .bind(endpoint.id)
      .run();
    const at = Date.now();
    for (const [i, status] of deliveryStatuses.entries()) {
      const delivery = await insertRow('webhook_deliveries', {
        account_id: accountId,
        endpoint_id: endpoint.id,
        message_id: `evt_raw${i}`,
        type: EVENT_TYPES[i] ?? 'ping',
        body: '{}',
        status,
        attempts: 1,
        created_at: at,
        updated_at: at,
      });
      await env.DB.prepare(
        'INSERT INTO webhook_attempts (account_id, delivery_id, attempt, at, status, latency_ms, response, error) VALUES (?, ?, 1, ?, ?, 12, ?, ?)',
      )
        .bind(accountId, delivery, at, i % 2 ? 500 : null, 'failed', i % 2 ? null : 'timeout')
        .run();
    }
    const session = await signIn(key);
    const paths = routes
      .filter((r) => r.path.startsWith('/endpoints'))
      .map((r) => r.path.replace(':id', String(endpoint.id)));
    expect(paths.length).toBeGreaterThanOrEqual(4);
    for (const lang of ['pt-BR', 'en'] as Lang[]) {
      for (const path of paths) {
        const html = await page(await panel(`/panel${path}`, { cookie: `${session}; lang=${lang}` }));
        expect(rawEnums(visibleTexts(html)), `${lang} ${path}`).toEqual([]);
        expect(
          html.match(/<td(?![^>]*\sdata-label="[^"]+")[^>]*>/g),
          `${path} td without data-label`,
        ).toBeNull();
      }
    }
  });
});
