// The account's time zone (issue 34): a date with no time stands for that day in it, so a task due
// 365 days after a date-only `data_compra` lands on that day where the account is.
import { describe, expect, it } from 'vitest';
import { call, expectProblem, json, keyWith, newAccount, newWebhook, roundTrips } from '../helpers';
import { deliver, eventOf, get, ingest } from '../queue/webhook-support';

const put = (key: string, body: unknown) => call('/v1/account', { method: 'PUT', key, body });

/** A webhook whose task is due 365 days (and `hours`) after the event's date-only `data_compra`. */
async function dueAfterPurchase(key: string, dataCompra: string, hours = 0): Promise<string> {
  const hook = await newWebhook(key, {
    fields: [
      { key: 'nome', type: 'string', required: true, target: 'contact.name' },
      { key: 'telefone', type: 'phone', required: true, target: 'contact.phone' },
      { key: 'data_compra', type: 'date', formats: ['DD/MM/YYYY'] },
    ],
    flows: [
      { action: 'upsert_contact', match_on: ['phone'] },
      { action: 'create_deal', name: '{{nome}}' },
      {
        action: 'create_task',
        name: 'Revisão',
        category: 'Pós-venda',
        due: { from: 'data_compra', days: 365, hours },
      },
    ],
  });
  const eventId = await ingest(hook, { nome: 'Ana', telefone: '+55 11 98765-4321', data_compra: dataCompra });
  await deliver([eventId]);
  const event = await eventOf(key, hook.id, eventId);
  expect(event.status, JSON.stringify(event)).toBe('processed');
  return (await get(key, `/v1/tasks/${event.result.task_ids[0]}`)).due_date;
}

describe('GET/PUT /v1/account', () => {
  it('is America/Sao_Paulo by default, changes to an IANA zone and refuses anything else with a 422', async () => {
    const { id, key } = await newAccount('Loja');
    const read = await call('/v1/account', { key });
    expect(read.status).toBe(200);
    expect(roundTrips(read)).toBe(1);
    expect((await json(read)).data).toMatchObject({ id, name: 'Loja', time_zone: 'America/Sao_Paulo' });
    const changed = await put(key, { time_zone: 'America/Manaus' });
    expect(changed.status).toBe(200);
    expect(roundTrips(changed)).toBeLessThanOrEqual(2);
    expect((await json(changed)).data.time_zone).toBe('America/Manaus');
    // Intl's own spelling of a name it knows.
    expect((await json(await put(key, { time_zone: 'utc' }))).data.time_zone).toBe('UTC');
    for (const time_zone of ['Mars/Olympus', 'GMT-3 ', '', 'America/../etc', 3]) {
      const problem = await expectProblem(await put(key, { time_zone }), 422, 'validation_failed');
      expect(problem.errors, JSON.stringify(time_zone)).toEqual([
        expect.objectContaining({ path: 'time_zone', message: expect.stringMatching(/IANA|text/) }),
      ]);
    }
    expect((await expectProblem(await put(key, { name: 'x' }), 422, 'validation_failed')).errors).toEqual([
      expect.objectContaining({ path: 'name', code: 'unknown_field' }),
    ]);
    expect((await json(await call('/v1/account', { key }))).data.time_zone).toBe('UTC');
  });

  it('needs account:read to read and account:update to change; another account is never touched', async () => {
    const { id, key } = await newAccount();
    const other = await newAccount();
    const reader = await keyWith(id, ['account:read']);
    const contacts = await keyWith(id, ['contacts:*']);
    expect((await call('/v1/account', { key: reader })).status).toBe(200);
    expect(
      await expectProblem(await call('/v1/account', { key: contacts }), 403, 'insufficient_scope'),
    ).toMatchObject({
      required_scope: 'account:read',
    });
    await expectProblem(await put(reader, { time_zone: 'Asia/Tokyo' }), 403, 'insufficient_scope');
    expect((await json(await call('/v1/account', { key }))).data.time_zone).toBe('America/Sao_Paulo');
    expect((await put(await keyWith(id, ['account:update']), { time_zone: 'Asia/Tokyo' })).status).toBe(200);
    expect((await json(await call('/v1/account', { key }))).data.time_zone).toBe('Asia/Tokyo');
    expect((await json(await call('/v1/account', { key: other.key }))).data.time_zone).toBe(
      'America/Sao_Paulo',
    );
  });
});

describe('a date with no time stands for that day in the account zone', () => {
  it("a task due 365 days after a date-only data_compra lands on that day in São Paulo, not at UTC's midnight", async () => {
    const { key } = await newAccount();
    // 2024-03-05 in São Paulo (UTC-3) starts at 03:00 UTC; 365 days on is 2025-03-05.
    expect(await dueAfterPurchase(key, '2024-03-05')).toBe('2025-03-05T03:00:00.000Z');
    // A custom date format is a date with no time as well; `hours` counts from the day's start.
    expect(await dueAfterPurchase(key, '05/03/2024', 9)).toBe('2025-03-05T12:00:00.000Z');
  });

  it('follows the zone the account sets, to the calendar day (a clock change counts no hour)', async () => {
    const { key } = await newAccount();
    await put(key, { time_zone: 'Asia/Tokyo' });
    expect(await dueAfterPurchase(key, '2024-03-05')).toBe('2025-03-04T15:00:00.000Z');
    await put(key, { time_zone: 'America/New_York' });
    // 2025-11-01 is in summer time (UTC-4); 2026-11-01 starts in it too, and the clocks go back that day.
    expect(await dueAfterPurchase(key, '2025-11-01')).toBe('2026-11-01T04:00:00.000Z');
    expect(await dueAfterPurchase(key, '2025-03-09')).toBe('2026-03-09T04:00:00.000Z');
  });
});
