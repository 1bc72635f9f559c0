import { describe, expect, it } from 'vitest';
import {
  call,
  create,
  failNewestEvent,
  type Json,
  json,
  keyWith,
  newAccount,
  newWebhook,
  postEvent,
} from '../helpers';

const lead = {
  name: 'Ana Souza',
  email: 'ana@example.com',
  phone: '+5511912345678',
  custom_fields: { cpf: '123' },
};

async function answer(res: Response, status: number): Promise<Json> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await json(res)).data;
}

describe('a write by a key without the resource:read scope', () => {
  it("answers only the id and the fields it sent: a contacts:update key's PUT, a contacts:delete key's restore", async () => {
    const account = await newAccount();
    const contact = await create(account.key, '/v1/contacts', lead);
    const updater = await keyWith(account.id, ['contacts:update']);
    const put = (key: string, body: Json) => call(`/v1/contacts/${contact.id}`, { method: 'PUT', key, body });

    expect(await answer(await put(updater, {}), 200)).toEqual({ id: contact.id });
    expect(await answer(await put(updater, { name: 'Ana S.' }), 200)).toEqual({
      id: contact.id,
      name: 'Ana S.',
    });

    const deleter = await keyWith(account.id, ['contacts:delete']);
    expect((await call(`/v1/contacts/${contact.id}`, { method: 'DELETE', key: deleter })).status).toBe(204);
    const restored = await call(`/v1/contacts/${contact.id}/restore`, { method: 'POST', key: deleter });
    expect(await answer(restored, 200)).toEqual({ id: contact.id, deleted_at: null });

    // With the read scope too (or a wildcard), the whole contact, as before.
    const reader = await keyWith(account.id, ['contacts:update', 'contacts:read']);
    const whole = await answer(await put(reader, {}), 200);
    expect(whole).toMatchObject({ ...lead, name: 'Ana S.', id: contact.id });
    const full = await answer(await put(await keyWith(account.id, ['*:*']), {}), 200);
    expect(Object.keys(full)).toEqual(Object.keys(whole));
  });

  it('answers a webhooks:update key without webhooks:read its rotation and replay, never the config or a payload', async () => {
    const account = await newAccount();
    const hook = await newWebhook(account.key, { name: 'Site' });
    const updater = await keyWith(account.id, ['webhooks:update']);

    const renamed = await call(`/v1/inbound-webhooks/${hook.id}`, {
      method: 'PUT',
      key: updater,
      body: { name: 'Site 2' },
    });
    expect(await answer(renamed, 200)).toEqual({ id: hook.id, name: 'Site 2' });

    const rotated = await answer(
      await call(`/v1/inbound-webhooks/${hook.id}/rotate-token`, { method: 'POST', key: updater }),
      200,
    );
    expect(Object.keys(rotated).sort()).toEqual(['id', 'previous_url_expires_at', 'updated_at', 'url']);
    expect(rotated.url).toMatch(/\/hooks\/whk_/);

    expect((await postEvent(rotated.url, { nome: 'Ana', email: 'ana@example.com' })).status).toBe(204);
    const eventId = await failNewestEvent(hook.id);
    const replayed = await call(`/v1/inbound-webhooks/${hook.id}/events/${eventId}/replay`, {
      method: 'POST',
      key: updater,
    });
    expect(await answer(replayed, 202)).toEqual({ id: eventId, status: 'pending' });
  });

  it('is documented: the update and restore answers are the resource or its Written form', async () => {
    const doc = await json(await call('/openapi.json'));
    const schemas = doc.components.schemas;
    expect(schemas.ContactWriteResponse.properties.data.anyOf).toEqual([
      { $ref: '#/components/schemas/Contact' },
      { $ref: '#/components/schemas/ContactWritten' },
    ]);
    expect(schemas.ContactWritten.required).toEqual(['id']);
    const put = doc.paths['/v1/contacts/{id}'].put.responses['200'].content['application/json'].schema;
    const restore =
      doc.paths['/v1/contacts/{id}/restore'].post.responses['200'].content['application/json'].schema;
    expect([put, restore]).toEqual([
      { $ref: '#/components/schemas/ContactWriteResponse' },
      { $ref: '#/components/schemas/ContactWriteResponse' },
    ]);
  });
});
