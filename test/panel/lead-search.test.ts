import { describe, expect, it } from 'vitest';
import { newAccount, newWebhook, postEvent, roundTrips } from '../helpers';
import { page, panel, signIn } from './browser';

// "Buscar lead" in the panel's header: one lead across every webhook of the account.

const FIELDS = [
  { key: 'nome', type: 'string', target: 'contact.name' },
  { key: 'telefone', type: 'phone', target: 'contact.phone' },
];

describe('finding a lead in every webhook', () => {
  it('finds a phone in any format in two webhooks, names the lead, and never another account’s', async () => {
    const { key } = await newAccount();
    const site = await newWebhook(key, { name: 'Site', mode: 'test', fields: FIELDS });
    const portal = await newWebhook(key, { name: 'Portal', mode: 'test' });
    expect((await postEvent(site.path, { nome: 'Ana Souza', telefone: '(11) 91234-5678' })).status).toBe(204);
    expect((await postEvent(portal.path, { cliente: 'Ana S.', celular: '11912345678' })).status).toBe(204);
    expect((await postEvent(site.path, { nome: 'Bia Lima', telefone: '(21) 98888-7777' })).status).toBe(204);
    const other = await newAccount('Outra');
    const theirs = await newWebhook(other.key, { name: 'Deles', mode: 'test', fields: FIELDS });
    expect((await postEvent(theirs.path, { nome: 'Ana Outra', telefone: '11 91234-5678' })).status).toBe(204);
    const cookie = await signIn(key);
    expect(await page(await panel('/panel/webhooks', { cookie }))).toContain(
      '<a href="/panel/search">Buscar lead</a>',
    );
    const res = await panel(`/panel/search?q=${encodeURIComponent('+55 11 91234 5678')}`, { cookie });
    expect(roundTrips(res)).toBe(1);
    const html = (await page(res)).replace(/<span class="part">([^<]*)<\/span>/g, '$1');
    expect(html).toContain('Ana Souza · (11) 91234-5678');
    expect(html).toContain('Ana S. · 11912345678');
    expect(html).toContain('>Site<');
    expect(html).toContain('>Portal<');
    expect(html).not.toContain('Bia Lima');
    expect(html).not.toContain('Ana Outra');
    expect(html).not.toContain('Deles');
  });

  it('asks for 3 to 200 characters, escapes what was typed, and checks the session', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const empty = await panel('/panel/search', { cookie });
    expect(roundTrips(empty)).toBe(1);
    expect(await page(empty)).toContain('Procura nos eventos de todos os webhooks');
    expect(await page(await panel('/panel/search?q=ab', { cookie }), 400)).toContain(
      'Digite de 3 a 200 caracteres.',
    );
    const typed = await page(
      await panel(`/panel/search?q=${encodeURIComponent('"><script>x</script>')}`, { cookie }),
    );
    expect(typed).not.toContain('<script>x');
    expect(typed).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect((await panel('/panel/search')).status).toBe(303);
  });
});
