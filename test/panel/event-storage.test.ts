import { describe, expect, it } from 'vitest';
import { create, d1Of, newAccount, newWebhook } from '../helpers';
import { page, panel, signIn } from './browser';

const MIB = 1024 * 1024;

/** Sets the account's event storage usage as the triggers would have counted it. */
async function setUsage(accountId: number, bytes: number): Promise<void> {
  await d1Of(accountId)
    .prepare(
      `INSERT INTO account_event_storage (account_id, bytes, events) VALUES (?1, ?2, 1)
     ON CONFLICT (account_id) DO UPDATE SET bytes = excluded.bytes`,
    )
    .bind(accountId, bytes)
    .run();
}

describe('panel: event storage banner', () => {
  it('says on the list and on the webhook page that the storage is full, what it means and what to do', async () => {
    const { id, key } = await newAccount();
    const hook = await newWebhook(key, { name: 'Site' });
    const other = await newAccount();
    const cookie = await signIn(key);
    const otherCookie = await signIn(other.key);
    const paths = ['/panel/webhooks', `/panel/webhooks/${hook.id}`];

    for (const path of paths)
      expect(await page(await panel(path, { cookie }))).not.toContain('banner storage');

    await setUsage(id, 205 * MIB);
    for (const path of paths) {
      const body = await page(await panel(path, { cookie }));
      expect(body).toContain('class="banner storage-near" role="note"');
      expect(body).toContain('quase cheio (205 de 256 MiB)');
    }

    await setUsage(id, 256 * MIB);
    for (const path of paths) {
      const body = await page(await panel(path, { cookie }));
      expect(body).toContain('class="banner storage-full" role="alert"');
      expect(body).toContain('está cheio (256 de 256 MiB): os webhooks respondem 429');
      expect(body).toContain('peça ao operador do serviço para aumentar o limite');
      expect(body).toContain('Apagar todos os eventos deste webhook');
      expect(body).toContain('para que novas chamadas não voltem a encher');
    }
    const english = await page(
      await panel('/panel/webhooks', { cookie, headers: { 'Accept-Language': 'en' } }),
    );
    expect(english).toContain('event storage is full (256 of 256 MiB): its webhooks answer 429');
    expect(english).toContain('delete events from the webhook');
    expect(english).toContain('so that new calls do not fill the storage again');
    // Another account's pages show nothing.
    expect(await page(await panel('/panel/webhooks', { cookie: otherCookie }))).not.toContain(
      'banner storage',
    );
  });

  it('shows the webhook limit when a create would pass it', async () => {
    const { key } = await newAccount();
    for (let i = 0; i < 50; i++) await create(key, '/v1/inbound-webhooks', { name: `W${i}` });
    const cookie = await signIn(key);
    const res = await panel('/panel/webhooks', { cookie, form: { name: 'Um a mais' } });
    expect(await page(res, 422)).toContain('already has 50 inbound webhooks');
  });
});
