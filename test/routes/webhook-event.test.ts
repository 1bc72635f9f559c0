import { describe, expect, it } from 'vitest';
import { call, expectProblem, json, newAccount, newWebhook, roundTrips } from '../helpers';
import { deliver, eventLog, ingest } from '../queue/webhook-support';

const PATH = '/v1/inbound-webhooks';

describe('GET /v1/inbound-webhooks/{id}/events/{event_id}', () => {
  it('answers the event as the log lists it, in one round trip, also once the webhook is disabled', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key, {
      fields: [
        { key: 'nome', type: 'string', required: true, target: 'contact.name' },
        { key: 'tel', type: 'phone', required: true, target: 'contact.phone' },
      ],
      flows: [{ action: 'upsert_contact', match_on: ['phone'] }],
    });
    const id = await ingest(hook, { nome: 'Carla', tel: '11987654321', __fault: 'send' });
    await deliver([id]);
    const res = await call(`${PATH}/${hook.id}/events/${id}`, { key });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    const [listed] = await eventLog(key, hook.id);
    expect((await json(res)).data).toEqual(listed);
    expect(listed).toMatchObject({ id, webhook_id: hook.id, status: 'processed' });

    expect((await call(`${PATH}/${hook.id}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await call(`${PATH}/${hook.id}/events/${id}`, { key })).status).toBe(200);
  });

  it("answers 404 for another webhook's event, another account's, an unknown or malformed id", async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const other = await newWebhook(key, { name: 'Other' });
    const id = await ingest(hook, { __fault: 'send' });
    const stranger = await newAccount('Beta');
    for (const [who, path] of [
      [key, `${PATH}/${other.id}/events/${id}`],
      [stranger.key, `${PATH}/${hook.id}/events/${id}`],
      [key, `${PATH}/${hook.id}/events/999999`],
      [key, `${PATH}/${hook.id}/events/abc`],
      [key, `${PATH}/${hook.id}/events/0`],
    ] as const) {
      const res = await call(path, { key: who });
      await expectProblem(res, 404, 'not_found');
    }
    await expectProblem(await call(`${PATH}/${hook.id}/events/${id}`), 401, 'unauthorized');
  });
});
