import { describe, expect, it, vi } from 'vitest';
import { call, expectProblem, json, newAccount } from '../helpers';
import { deliveries, endpointWithBox, ping, plantEndpoint, received, setBox } from './support';

describe('POST /v1/webhook-endpoints/{id}/test', () => {
  it('sends a signed ping the standardwebhooks package verifies, and answers with the attempt', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key);
    const delivery = await ping(key, endpoint.id);
    expect(delivery).toMatchObject({ type: 'ping', status: 'succeeded', next_attempt_at: null });
    expect(delivery.attempts).toEqual([expect.objectContaining({ status: 204, error: null })]);
    const [got] = await received(name);
    expect(got).toMatchObject({ id: delivery.message_id, verified: true });
    expect(JSON.parse(got?.body ?? '')).toMatchObject({ type: 'ping', data: { endpoint_id: endpoint.id } });
    expect(got?.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect((await deliveries(key, endpoint.id)).map((d) => d.id)).toEqual([delivery.id]);
  });

  it('counts only a 2xx, keeps 2 KiB of the answer, follows no redirect', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key, [
      { status: 500, body: 'x'.repeat(5000) },
      { status: 302, headers: { location: 'https://receiver.example/elsewhere' } },
    ]);
    const failed = await ping(key, endpoint.id);
    expect(failed.status).toBe('failed');
    expect(failed.attempts[0]).toMatchObject({ status: 500 });
    expect(failed.attempts[0].response).toHaveLength(2048);
    const redirected = await ping(key, endpoint.id);
    expect(redirected).toMatchObject({
      status: 'failed',
      attempts: [expect.objectContaining({ status: 302 })],
    });
    expect(await received('elsewhere')).toEqual([]);
    expect(await received(name)).toHaveLength(2);
  });

  it('signs with both secrets during a rotation grace, either one verifying alone', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key);
    const rotated = await json(
      await call(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: 'POST', key, body: {} }),
    );
    await setBox(name, [endpoint.secret, rotated.data.secret], [{ status: 204 }]);
    await ping(key, endpoint.id);
    const [got] = await received(name);
    expect(got?.verified).toBe(true);
    expect(got?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
  });

  it('turns the endpoint off on a 410', async () => {
    const { key } = await newAccount();
    const { endpoint } = await endpointWithBox(key, [{ status: 410 }]);
    expect((await ping(key, endpoint.id)).status).toBe('failed');
    const after = await json(await call(`/v1/webhook-endpoints/${endpoint.id}`, { key }));
    expect(after.data).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    const on = await json(
      await call(`/v1/webhook-endpoints/${endpoint.id}`, { method: 'PUT', key, body: { enabled: true } }),
    );
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it('checks the URL again at send: a private one saved under an older rule is never fetched', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key);
    await plantEndpoint(endpoint.id, 'url = ?', 'https://169.254.169.254/latest/meta-data');
    const delivery = await ping(key, endpoint.id);
    expect(delivery.attempts[0]).toMatchObject({
      status: null,
      error: expect.stringContaining('URL refused'),
    });
    const log: string[] = await (await fetch('https://cimd.example/outbound-log')).json();
    expect(log.some((url) => url.includes('169.254'))).toBe(false);
    expect(await received(name)).toEqual([]);
  });
});

describe('retries through the queue', () => {
  it('resends a failed delivery with the same webhook-id, retrying on schedule until a 2xx', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key, [{ status: 500 }]);
    const first = await ping(key, endpoint.id);
    // The receiver fails the resend's first try (503, Retry-After: 1) and takes the retry 5 s on.
    await setBox(
      name,
      [endpoint.secret],
      [{ status: 503, headers: { 'retry-after': '1' } }, { status: 200 }],
    );
    const res = await call(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${first.id}/resend`, {
      method: 'POST',
      key,
    });
    expect(res.status).toBe(202);
    const done = await vi.waitFor(
      async () => {
        const [row] = await deliveries(key, endpoint.id);
        expect(row?.status).toBe('succeeded');
        return row;
      },
      { timeout: 25_000, interval: 250 },
    );
    expect(done.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
    const got = await received(name);
    expect(new Set(got.map((r) => r.id))).toEqual(new Set([first.message_id]));
    expect(got.every((r) => r.verified)).toBe(true);
  });

  it('stops retrying a message the receiver aborts', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key, [{ status: 500 }]);
    const first = await ping(key, endpoint.id);
    await setBox(
      name,
      [endpoint.secret],
      [{ status: 500, headers: { 'webhook-delivery': 'abort-message' } }],
    );
    await call(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${first.id}/resend`, { method: 'POST', key });
    await vi.waitFor(
      async () => expect((await deliveries(key, endpoint.id))[0]).toMatchObject({ status: 'aborted' }),
      { timeout: 10_000, interval: 250 },
    );
  });

  it('recovers the failed deliveries since a time', async () => {
    const { key } = await newAccount();
    const { name, endpoint } = await endpointWithBox(key, [{ status: 500 }]);
    const since = new Date(Date.now() - 1000).toISOString();
    await ping(key, endpoint.id);
    await ping(key, endpoint.id);
    await setBox(name, [endpoint.secret], [{ status: 204 }]);
    const res = await call(`/v1/webhook-endpoints/${endpoint.id}/recover`, {
      method: 'POST',
      key,
      body: { since },
    });
    expect((await json(res)).data).toEqual({ resent: 2 });
    await vi.waitFor(
      async () =>
        expect((await deliveries(key, endpoint.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']),
      { timeout: 10_000, interval: 250 },
    );
  });

  it('turns off an endpoint failing for 5 days and tells the account’s other endpoints', async () => {
    const { key } = await newAccount();
    const { endpoint } = await endpointWithBox(key, [{ status: 500 }]);
    const watcher = await endpointWithBox(key, [{ status: 204 }], ['endpoint.disabled']);
    await plantEndpoint(endpoint.id, 'failing_since = ?', Date.now() - 5 * 24 * 3600_000 - 1000);
    await ping(key, endpoint.id);
    const after = await json(await call(`/v1/webhook-endpoints/${endpoint.id}`, { key }));
    expect(after.data).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    const told = await vi.waitFor(
      async () => {
        const got = await received(watcher.name);
        expect(got).toHaveLength(1);
        return got;
      },
      { timeout: 10_000, interval: 250 },
    );
    expect(told[0]?.verified).toBe(true);
    expect(JSON.parse(told[0]?.body ?? '')).toMatchObject({
      type: 'endpoint.disabled',
      data: { id: endpoint.id, disabled_reason: 'failing' },
    });
  });
});

describe("another account's ids", () => {
  it('are a 404 on every delivery route', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const { endpoint } = await endpointWithBox(a.key, [{ status: 500 }]);
    const theirs = await ping(a.key, endpoint.id);
    const mine = await endpointWithBox(b.key);
    const base = `/v1/webhook-endpoints/${endpoint.id}`;
    for (const [method, path, body] of [
      ['GET', `${base}/deliveries`, undefined],
      ['POST', `${base}/deliveries/${theirs.id}/resend`, undefined],
      ['POST', `/v1/webhook-endpoints/${mine.endpoint.id}/deliveries/${theirs.id}/resend`, undefined],
      ['POST', `${base}/recover`, { since: '2020-01-01T00:00:00Z' }],
      ['POST', `${base}/test`, undefined],
    ] as const) {
      await expectProblem(await call(path, { method, key: b.key, body }), 404, 'not_found');
    }
    expect((await deliveries(a.key, endpoint.id))[0]).toMatchObject({ id: theirs.id, status: 'failed' });
  });
});
