import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import {
  BASE,
  call,
  d1OfRow,
  expectProblem,
  type Json,
  json,
  list,
  newAccount,
  newWebhook,
} from '../helpers';
import { deliver, eventOf, get, runEvent } from '../queue/webhook-support';

// Keys and paths from outside never name `__proto__`, `prototype` or `constructor` (issue 21).
const RESERVED = ['__proto__', 'prototype', 'constructor'];

/** A POST with exactly this body text: a JS object literal cannot hold an own `__proto__` key. */
const rawPost = (path: string, body: string, type = 'application/json') =>
  exports.default.fetch(
    new Request(`${BASE}${path}`, { method: 'POST', headers: { 'Content-Type': type }, body }),
  );

const nome = { key: 'nome', type: 'string', required: true, target: 'contact.name' };
const telefone = { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' };
const data = { key: 'data', type: 'date' };

/** Asserts a 422 `validation_failed` with a `reserved_key` error at each of `paths`. */
async function expectReserved(res: Response, paths: string[]): Promise<void> {
  const problem = await expectProblem(res, 422, 'validation_failed');
  const reserved = problem.errors.filter((e: Json) => e.code === 'reserved_key');
  expect(reserved.map((e: Json) => e.path)).toEqual(paths);
  for (const error of reserved)
    expect(error.message).toMatch(/^"(__proto__|prototype|constructor)" is a reserved name/);
}

describe('a configuration naming a reserved key', () => {
  it.each(RESERVED)(
    'is a 422 at the exact path of each field key, when, template and due naming %s',
    async (name) => {
      const { key } = await newAccount();
      const config = {
        name: 'Site',
        fields: [
          nome,
          telefone,
          { key: `${name}.ADMIN_TOKEN`, type: 'string' },
          { key: `lead.${name}`, type: 'string' },
          data,
        ],
        flows: [
          { action: 'upsert_contact', match_on: ['phone'] },
          {
            action: 'create_deal',
            name: `{{nome}} {{ ${name}.x }}`,
            when: { field: `a.${name}`, op: 'exists' },
          },
          { action: 'create_task', name: 'Ligar', category: `{{${name}}}`, due: { from: name, days: 1 } },
        ],
      };
      const paths = [
        'fields.2.key',
        'fields.3.key',
        'flows.1.name',
        'flows.1.when.field',
        'flows.2.category',
        'flows.2.due.from',
      ];
      await expectReserved(await call('/v1/inbound-webhooks', { method: 'POST', key, body: config }), paths);
      const hook = await newWebhook(key, { fields: [nome] });
      const put = await call(`/v1/inbound-webhooks/${hook.id}`, { method: 'PUT', key, body: config });
      await expectReserved(put, paths);
      expect((await get(key, `/v1/inbound-webhooks/${hook.id}`)).fields).toEqual([nome]);
    },
  );

  it.each(RESERVED)('is a 422 for a custom field target named %s', async (name) => {
    const { key } = await newAccount();
    const body = {
      name: 'Site',
      fields: [
        { key: 'a', type: 'string', target: `contact.custom_fields.${name}` },
        { key: 'b', type: 'string', target: `deal.custom_fields.${name}` },
      ],
    };
    await expectReserved(await call('/v1/inbound-webhooks', { method: 'POST', key, body }), [
      'fields.0.target',
      'fields.1.target',
    ]);
  });
});

describe('/v1 custom_fields with a reserved key', () => {
  it.each(['contacts', 'deals'])(
    'is a 422 at custom_fields.<key> on POST and PUT of %s',
    async (resource) => {
      const { key } = await newAccount();
      const row = (await json(await call(`/v1/${resource}`, { method: 'POST', key, body: { name: 'Ana' } })))
        .data;
      for (const name of RESERVED) {
        const body = `{"name":"Ana","custom_fields":{"ok":1,"${name}":{"ADMIN_TOKEN":"x"}}}`;
        await expectReserved(await call(`/v1/${resource}`, { method: 'POST', key, body }), [
          `custom_fields.${name}`,
        ]);
        const put = await call(`/v1/${resource}/${row.id}`, { method: 'PUT', key, body });
        await expectReserved(put, [`custom_fields.${name}`]);
      }
      expect((await get(key, `/v1/${resource}/${row.id}`)).custom_fields).toEqual({});
    },
  );

  it('answers a query parameter named like a reserved key with a 400, like any unknown one', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    for (const query of [
      '__proto__=x',
      'constructor=y',
      'prototype=1',
      '__proto__[x]=1',
      'sort=constructor',
    ]) {
      for (const path of ['/v1/contacts', `/v1/inbound-webhooks/${hook.id}/events`]) {
        await expectProblem(await call(`${path}?${query}`, { key }), 400, 'invalid_query');
      }
    }
  });

  it('answers a body whose own keys are reserved with a 4xx, never a 500', async () => {
    const { key } = await newAccount();
    for (const body of [
      '{"__proto__":{"name":"x"}}',
      '{"name":"Ana","constructor":{"x":1}}',
      '{"name":"Ana","prototype":1}',
    ]) {
      const res = await call('/v1/contacts', { method: 'POST', key, body });
      expect(res.status, body).toBe(422);
    }
  });
});

describe('a sender body with reserved keys', () => {
  const WARNED = (path: string) =>
    expect.objectContaining({ path, code: 'reserved_key', message: expect.stringMatching(/^Left out: /) });

  it('is stored as sent, the keys left out with a warning each, and the rest of the lead processed', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        nome,
        telefone,
        { key: 'lead.origem', type: 'string', target: 'contact.custom_fields.origem' },
      ],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const res = await rawPost(
      hook.path,
      '{"nome":"Ana","telefone":"11987654321","__proto__":{"ADMIN_TOKEN":"x"},"lead":{"origem":"site","constructor":{"x":1},"prototype":"p"},"__fault":"send"}',
    );
    expect(res.status).toBe(204);
    const stored = (await get(key, `/v1/inbound-webhooks/${hook.id}/events`))[0];
    const warnings = [WARNED('__proto__'), WARNED('lead.constructor'), WARNED('lead.prototype')];
    expect(stored.warnings).toEqual(warnings);
    await deliver([stored.id]);
    const event = await eventOf(key, hook.id, stored.id);
    expect(event).toMatchObject({
      status: 'processed',
      payload: { nome: 'Ana', lead: { origem: 'site', prototype: 'p' } },
    });
    expect(Object.hasOwn(event.payload, '__proto__')).toBe(true);
    expect(event.warnings).toEqual(warnings);
    const contact = await get(key, `/v1/contacts/${event.result.contact_id}`);
    expect(contact).toMatchObject({
      name: 'Ana',
      phone: '+5511987654321',
      custom_fields: { origem: 'site' },
    });
  });

  it('is the same in a form: a[__proto__] and a.constructor.x are left out with a warning', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [nome, telefone],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const form =
      'nome=Ana&telefone=11987654321&a[__proto__]=1&a.constructor.x=1&b[prototype][]=2&__fault=send';
    expect((await rawPost(hook.path, form, 'application/x-www-form-urlencoded')).status).toBe(204);
    const stored = (await get(key, `/v1/inbound-webhooks/${hook.id}/events`))[0];
    await deliver([stored.id]);
    const event = await eventOf(key, hook.id, stored.id);
    expect(event.status).toBe('processed');
    expect(event.warnings).toEqual([WARNED('a.__proto__'), WARNED('a.constructor'), WARNED('b.prototype')]);
    expect(await get(key, `/v1/contacts/${event.result.contact_id}`)).toMatchObject({ name: 'Ana' });
  });

  it('is never offered by sample-fields, which offers the rest', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, { mode: 'test' });
    await runEvent(
      key,
      hook,
      JSON.parse(
        '{"nome":"Ana","__proto__":{"ADMIN_TOKEN":"x"},"lead":{"constructor":{"x":1},"prototype":2,"ok":3}}',
      ),
    );
    const offered = (await get(key, `/v1/inbound-webhooks/${hook.id}/sample-fields`)).map((f: Json) => f.key);
    expect(offered).toEqual(['nome', 'lead.ok', '__fault']);
  });
});

describe('a configuration stored before reserved names were refused', () => {
  it('keeps the lead without the reserved custom field, with a warning, and pollutes nothing', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [nome, telefone, { key: 'origem', type: 'string', target: 'contact.custom_fields.origem' }],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const legacy = [
      nome,
      telefone,
      { key: 'origem', type: 'string', required: false, target: 'contact.custom_fields.constructor' },
    ];
    await d1OfRow('inbound_webhooks', hook.id)
      .prepare('UPDATE inbound_webhooks SET fields = ? WHERE id = ?')
      .bind(JSON.stringify(legacy), hook.id)
      .run();
    const event = await runEvent(key, hook, { nome: 'Ana', telefone: '11987654321', origem: 'site' });
    // The lead is kept (an optional value a record cannot take is left out, issue 21 section 4);
    // the reserved custom field is never written, and the warning says why.
    expect(event.status).toBe('processed');
    expect(JSON.stringify(event.warnings)).toContain('constructor');
    const contacts = (await list(key, '/v1/contacts')) as { data: { name: string; custom_fields: object }[] };
    expect(contacts.data).toMatchObject([{ name: 'Ana' }]);
    expect(Object.keys(contacts.data[0]?.custom_fields ?? {})).not.toContain('constructor');
    expect(Object.hasOwn(Object.prototype, 'origem')).toBe(false);
  });
});
