import { createScheduledController } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { accountsOnShard, BASE, json, newAccount, newKey } from '../helpers';
import { ended, postParkedImport } from '../routes/bulk/import-support';
import { page, panel, signIn } from './browser';

// This file reads or plants rows in shard 0's database itself (env.DB): its accounts are there
// (test/helpers.ts accountsOnShard); the rest of the suite spreads accounts over the shards.
accountsOnShard(0);

/** The import page's file form sent as a browser does: multipart, with the page's Origin. */
function upload(cookie: string, csv: string, fields: Record<string, string>, origin = new URL(BASE).origin) {
  const form = new FormData();
  form.append('file', new File([csv], 'planilha.csv', { type: 'text/csv' }));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return exports.default.fetch(
    new Request(`${BASE}/panel/imports/preview`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: origin },
      body: form,
      redirect: 'manual',
    }),
  );
}

const fileKeyOf = (html: string) => /name="file_key" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('the panel import page', () => {
  it('upload and preview, edit a column, start, follow the progress, download the failed rows', async () => {
    const { id: accountId, key } = await newAccount();
    const cookie = await signIn(key);
    const empty = await page(await panel('/panel/imports', { cookie }));
    expect(empty).toContain('Nenhuma importação ainda.');
    expect(empty).toContain(
      '<input type="radio" name="mode" value="upsert" checked> Atualizar quem já existe, criar os novos',
    );

    const csv = 'Nome;E-mail;Apelido\nAna;ana@x.example;Aninha\nBia;não-é-email;B\n';
    const preview = await page(await upload(cookie, csv, { resource: 'contacts', mode: 'upsert' }));
    const fileKey = fileKeyOf(preview);
    expect(fileKey).toMatch(new RegExp(`^imports/${accountId}/`));
    // Each header with its field in words; the unknown one ignored; the first rows' actions.
    expect(preview).toMatch(
      /<label for="map-0">Nome<\/label>[\s\S]*?<option value="name" selected>Nome<\/option>/,
    );
    expect(preview).toMatch(
      /<label for="map-2">Apelido<\/label><\/td>\s*<td[^>]*><select id="map-2" name="map.2"><option value="" selected>Ignorada/,
    );
    expect(preview).toContain('>Criar</span>');
    expect(preview).toMatch(
      />Falhar<\/span><\/td><td data-label="Motivo">E-mail: Deve ser um e-mail válido\.</,
    );
    expect(
      await env.DB.prepare('SELECT count(*) AS n FROM contacts WHERE account_id = ?')
        .bind(accountId)
        .first('n'),
    ).toBe(0);

    // The nickname column mapped to the external id: the start writes it.
    const start = await panel('/panel/imports', {
      cookie,
      form: {
        file_key: fileKey,
        resource: 'contacts',
        mode: 'upsert',
        'map.0': 'name',
        'map.1': 'email',
        'map.2': 'external_id',
      },
    });
    expect(start.status).toBe(303);
    const at = start.headers.get('Location') ?? '';
    expect(at).toMatch(/^\/panel\/imports\/\d+$/);
    const id = Number(at.split('/').pop());
    // A second click on the same preview's button starts nothing more: it is the same import.
    const twice = await panel('/panel/imports', {
      cookie,
      form: { file_key: fileKey, resource: 'contacts', mode: 'upsert' },
    });
    expect(twice.headers.get('Location')).toBe(at);
    const running = await page(await panel(at, { cookie }));
    expect(running).toMatch(/<progress id="bar" max="\d+" value="\d+">/);
    for (const word of ['Linhas lidas', 'Criados', 'Atualizados', 'Sem mudança', 'Com erro'])
      expect(running).toContain(word);

    const done = await ended(key, id);
    expect(done.counts).toMatchObject({ rows: 2, created: 1, failed: 1 });
    expect(
      await env.DB.prepare('SELECT count(*) AS n FROM imports WHERE account_id = ?')
        .bind(accountId)
        .first('n'),
    ).toBe(1);
    const shown = await page(await panel(at, { cookie }));
    expect(shown).toContain('Concluída');
    expect(shown).not.toContain('data-poll');
    expect(shown).not.toContain('Cancelar a importação');
    expect(shown).toContain(`href="/panel/imports/${id}/errors.csv"`);
    const errors = await panel(`/panel/imports/${id}/errors.csv`, { cookie });
    expect(errors.headers.get('Content-Type')).toContain('text/csv');
    expect((await errors.text()).split('\r\n')[0]).toBe('line,Nome,E-mail,Apelido,error');
    const row = await env.DB.prepare('SELECT external_id FROM contacts WHERE account_id = ?')
      .bind(accountId)
      .first();
    expect(row?.external_id).toBe('Aninha');
    const list = await page(await panel('/panel/imports', { cookie }));
    expect(list).toContain(`href="/panel/imports/${id}"`);
  });

  it('a running import can be cancelled from its page; the English page says so in English', async () => {
    const { key } = await newAccount();
    const cookie = `${await signIn(key)}; lang=en`;
    const rows = Array.from({ length: 250 }, (_, i) => `P ${i}`).join('\n');
    const preview = await page(
      await upload(cookie, `Name\n${rows}\n`, { resource: 'contacts', mode: 'create' }),
    );
    expect(preview).toContain('The first rows');
    const start = await panel('/panel/imports', {
      cookie,
      form: { file_key: fileKeyOf(preview), resource: 'contacts', mode: 'create' },
    });
    const at = start.headers.get('Location') ?? '';
    const cancel = await panel(`${at}/cancel`, { cookie, form: {} });
    expect(cancel.status).toBe(303);
    const id = Number(at.split('/').pop());
    expect((await ended(key, id)).status).toMatch(/cancelled|completed/);
    expect(await page(await panel(at, { cookie }))).toMatch(/Cancelled|Completed/);
  });

  it("another account's import is a 404; a POST from another origin is refused and starts nothing", async () => {
    const a = await newAccount();
    const b = await newAccount('Other');
    const cookieA = await signIn(a.key);
    const cookieB = await signIn(b.key);
    const preview = await page(
      await upload(cookieA, 'Nome\nAna\n', { resource: 'contacts', mode: 'upsert' }),
    );
    const fileKey = fileKeyOf(preview);
    const start = await panel('/panel/imports', {
      cookie: cookieA,
      form: { file_key: fileKey, resource: 'contacts', mode: 'upsert' },
    });
    const at = start.headers.get('Location') ?? '';
    for (const path of [at, `${at}/errors.csv`])
      expect((await panel(path, { cookie: cookieB })).status, path).toBe(404);
    expect((await panel(`${at}/cancel`, { cookie: cookieB, form: {} })).status).toBe(404);
    // B cannot start an import of A's stored file either: it is not under B's prefix.
    const other = await upload(cookieA, 'Nome\nBia\n', { resource: 'contacts', mode: 'upsert' });
    const stolen = await panel('/panel/imports', {
      cookie: cookieB,
      form: { file_key: fileKeyOf(await page(other)), resource: 'contacts', mode: 'upsert' },
    });
    expect(await page(stolen, 422)).toContain('não está mais guardado');
    // CSRF: another site's form, and a form with no Origin at all.
    const count = () =>
      env.DB.prepare('SELECT count(*) AS n FROM imports WHERE account_id = ?').bind(a.id).first('n');
    const before = await count();
    for (const origin of ['https://evil.example', null]) {
      const res = await panel('/panel/imports', {
        cookie: cookieA,
        origin,
        form: { file_key: fileKey, resource: 'contacts', mode: 'upsert' },
      });
      expect(res.status).toBe(403);
    }
    expect(
      (await upload(cookieA, 'Nome\nEva\n', { resource: 'contacts', mode: 'upsert' }, 'https://evil.example'))
        .status,
    ).toBe(403);
    expect(await count()).toBe(before);
  });

  it("the cron deletes a preview's file no import took up within a day, and keeps a queued import's", async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const abandoned = fileKeyOf(
      await page(await upload(cookie, 'Nome\nAna\n', { resource: 'contacts', mode: 'upsert' })),
    );
    // An import whose chunk waits (parked), so it stays queued with its file.
    const started = await postParkedImport(key, 'resource=contacts&mode=create', 'name\nBia\n');
    expect(started.status).toBe(202);
    const queued = (await env.DB.prepare('SELECT file_key FROM imports WHERE id = ?')
      .bind((await json(started)).data.id)
      .first('file_key')) as string;
    const cronIn = (ms: number) =>
      worker.scheduled(
        createScheduledController({ scheduledTime: Date.now() + ms, cron: '*/5 * * * *' }),
        env,
      );
    const stored = async (fileKey: string) => (await env.IMPORT_FILES.head(fileKey)) !== null;

    await cronIn(23 * 3_600_000);
    expect([await stored(abandoned), await stored(queued)]).toEqual([true, true]);
    await cronIn(25 * 3_600_000);
    expect([await stored(abandoned), await stored(queued)]).toEqual([false, true]);
    // The preview's start now says the file is gone, and starts nothing.
    const late = await panel('/panel/imports', {
      cookie,
      form: { file_key: abandoned, resource: 'contacts', mode: 'upsert' },
    });
    expect(await page(late, 422)).toContain('O arquivo enviado não está mais guardado: envie-o de novo.');
  });

  it('a header or cell with <script> is shown as text', async () => {
    const { key } = await newAccount();
    const cookie = await signIn(key);
    const csv = 'Nome,<script>alert(1)</script>\n"<img src=x onerror=alert(2)>",x\n';
    const html = await page(await upload(cookie, csv, { resource: 'contacts', mode: 'create' }));
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<img src=x');
  });

  it('a read-only session sees the imports but cannot start one', async () => {
    const account = await newAccount();
    const cookie = await signIn((await newKey(account.id, ['*:read'])).key);
    const html = await page(await panel('/panel/imports', { cookie }));
    expect(html).not.toContain('action="/panel/imports/preview"');
    expect(html).toContain('Esta chave só lê');
    const res = await upload(cookie, 'Nome\nAna\n', { resource: 'contacts', mode: 'upsert' });
    expect(await page(res, 403)).toContain('contacts:insert');
    expect((await env.IMPORT_FILES.list({ prefix: `imports/${account.id}/` })).objects).toHaveLength(0);
  });
});
