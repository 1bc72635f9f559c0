// What an outside conformance pass tripped over, each through the public interface: an unknown
// webhook endpoint, Python's booleans, a `+` left unencoded in a date filter, and a cursor sent
// with another query than its own.
import { describe, expect, it } from 'vitest';
import {
  accountWithDeal,
  call,
  create,
  expectProblem,
  idsOf,
  json,
  list,
  newAccount,
  newWebhook,
} from '../helpers';

describe('an unknown webhook endpoint', () => {
  it('is a 404 with no content, as an unknown token is', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    for (const path of ['/hooks/', `${hook.path}/extra`, `${hook.path}/`, '/hooks/a/b/c']) {
      for (const method of ['POST', 'GET', 'PUT']) {
        const res = await call(path, { method, body: method === 'GET' ? undefined : { n: 1 } });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get('Content-Type'), `${method} ${path}`).toBeNull();
        expect(await res.text(), `${method} ${path}`).toBe('');
      }
    }
  });

  it('keeps the 405 with Allow for a GET on a real webhook URL', async () => {
    const { key } = await newAccount();
    const hook = await newWebhook(key);
    const res = await call(hook.path);
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('Allow')).toBe('POST');
  });

  it('leaves the 404 problem of an unknown route elsewhere as it was', async () => {
    await expectProblem(await call('/hooksx'), 404, 'not_found');
    await expectProblem(await call('/hooks', { method: 'POST', body: {} }), 404, 'not_found');
    await expectProblem(await call('/nowhere', { method: 'POST', body: {} }), 404, 'not_found');
  });
});

describe('flags as Python writes them', () => {
  it('reads is_completed=True and False (requests sends str(True)) as true and false', async () => {
    const { key, dealId } = await accountWithDeal();
    const open = await create(key, '/v1/tasks', { deal_id: dealId, name: 'Open', category: 'Call' });
    const done = await create(key, '/v1/tasks', {
      deal_id: dealId,
      name: 'Done',
      category: 'Call',
      is_completed: true,
    });
    expect(idsOf(await list(key, '/v1/tasks?is_completed=True'))).toEqual([done.id]);
    expect(idsOf(await list(key, '/v1/tasks?is_completed=False'))).toEqual([open.id]);
    expect(idsOf(await list(key, '/v1/tasks?is_completed=true'))).toEqual([done.id]);
    // A trash flag too; anything else stays refused.
    expect((await list(key, '/v1/users?deleted=False')).data).toEqual([]);
    for (const value of ['TRUE', '1', 'yes', '', 'tRUE']) {
      await expectProblem(await call(`/v1/tasks?is_completed=${value}`, { key }), 400, 'invalid_query');
    }
  });
});

describe('a + left unencoded in a date filter', () => {
  it('is a 400 that says to encode it as %2B', async () => {
    const { key } = await newAccount();
    // What `?due_date__gte=2026-01-01T00:00:00+03:00` becomes when the + is not encoded.
    const body = await expectProblem(
      await call('/v1/tasks?due_date__gte=2026-01-01T00:00:00+03:00', { key }),
      400,
      'invalid_query',
    );
    expect(body.errors).toEqual([
      {
        path: 'due_date__gte',
        code: expect.any(String),
        message: expect.stringContaining('encode the + as %2B (2026-01-01T00:00:00%2B03:00)'),
      },
    ]);
    const compact = await expectProblem(
      await call('/v1/users?created_at__lt=2026-01-01T10:00+0300', { key }),
      400,
      'invalid_query',
    );
    expect(compact.errors[0].message).toContain('%2B');
    // Encoded, it is read; a space that is no offset gets the usual words.
    expect((await call('/v1/tasks?due_date__gte=2026-01-01T00:00:00%2B03:00', { key })).status).toBe(200);
    const other = await expectProblem(
      await call('/v1/tasks?due_date__gte=2026-01-01%2000:00', { key }),
      400,
      'invalid_query',
    );
    expect(other.errors[0].message).not.toContain('%2B');
  });
});

describe('a cursor sent with other filters than its own', () => {
  async function twoPages(key: string, path: string) {
    const first = await list(key, path);
    expect(first.meta.next_cursor, path).toEqual(expect.any(String));
    return first.meta.next_cursor as string;
  }

  it('is refused with a 400 invalid_cursor that says so', async () => {
    const { key, dealId } = await accountWithDeal();
    for (const name of ['A', 'B', 'C'])
      await create(key, '/v1/tasks', { deal_id: dealId, name, category: 'Call' });
    await create(key, '/v1/tasks', { deal_id: dealId, name: 'D', category: 'Call', is_completed: true });
    const cursor = await twoPages(key, '/v1/tasks?is_completed=false&limit=1');
    for (const query of ['', 'is_completed=true&', `deal_id=${dealId}&`, 'due_date__gte=2020-01-01&']) {
      const body = await expectProblem(
        await call(`/v1/tasks?${query}limit=1&cursor=${cursor}`, { key }),
        400,
        'invalid_cursor',
      );
      expect(body.detail, query).toBe(
        'This cursor was issued for other filters than this request has: send it with the query of the page it came from (its Link header holds it), or leave out cursor to start these filters from their first page.',
      );
    }
    // Its own filters, in any order and under another limit, go on.
    const next = await call(`/v1/tasks?limit=2&cursor=${cursor}&is_completed=false`, { key });
    expect(next.status).toBe(200);
    expect((await json(next)).data.map((t: { name: string }) => t.name)).toEqual(['B', 'A']);
  });

  it('takes an id list in any order as the same filter, and the trash as another', async () => {
    const { key } = await newAccount();
    const owners = [];
    for (const name of ['O1', 'O2'])
      owners.push(await create(key, '/v1/users', { name, email: `${name}@x.com` }));
    const [a, b] = owners.map((o) => o.id);
    for (const name of ['C1', 'C2', 'C3']) await create(key, '/v1/contacts', { name, owner_id: a });
    const cursor = await twoPages(key, `/v1/contacts?owner_id=${a},${b}&limit=1`);
    expect((await call(`/v1/contacts?owner_id=${b},${a}&limit=1&cursor=${cursor}`, { key })).status).toBe(
      200,
    );
    await expectProblem(
      await call(`/v1/contacts?owner_id=${a},${b}&deleted=true&limit=1&cursor=${cursor}`, { key }),
      400,
      'invalid_cursor',
    );
  });
});
