import { expect } from 'vitest';
import { call, idsOf, list, postEvent, resource } from '../helpers';

// What the /v1/inbound-webhooks test files share: the path, its calls and its event log's.

export const PATH = '/v1/inbound-webhooks';
export const { get, listIds, put } = resource(PATH);

export const post = (key: string, body: unknown) => call(PATH, { method: 'POST', key, body });

export const eventsPath = (id: number, query = '') => `${PATH}/${id}/events${query ? `?${query}` : ''}`;

export const eventIds = async (key: string, id: number, query = ''): Promise<number[]> =>
  idsOf(await list(key, eventsPath(id, query)));

/** Posts an event that the fault injection keeps off the queue, so it stays `pending`. */
export async function pendingEvent(url: string, body: Record<string, unknown> = {}): Promise<void> {
  const res = await postEvent(url, { ...body, __fault: 'send' });
  expect(res.status).toBe(204);
}
