import { expect } from 'vitest';
import { call, create, d1OfRow, type Json } from '../helpers';

/** What the receiver Worker (test/internet/worker.ts) recorded of one box. */
export type Received = {
  id: string | null;
  verified: boolean;
  body: string;
  headers: Record<string, string>;
};
type Answer = { status: number; headers?: Record<string, string>; body?: string };

/** A new box at the receiver: the endpoint URL that reaches it, and what it answers in turn. */
export async function box(secrets: string[], answers: Answer[] = [{ status: 204 }]) {
  const name = crypto.randomUUID();
  await setBox(name, secrets, answers);
  return { name, url: `https://receiver.example/${name}` };
}

export async function setBox(name: string, secrets: string[], answers: Answer[]): Promise<void> {
  const res = await fetch(`https://receiver.example/_box/${name}`, {
    method: 'PUT',
    body: JSON.stringify({ secrets, answers }),
  });
  expect(res.status).toBe(204);
}

export const received = async (name: string): Promise<Received[]> =>
  (await fetch(`https://receiver.example/_box/${name}`)).json();

/** An endpoint posting to a new box that answers `answers`; the box's name and the endpoint with its secret. */
export async function endpointWithBox(key: string, answers?: Answer[], eventTypes = ['*']) {
  const made = await create(key, '/v1/webhook-endpoints', {
    url: 'https://receiver.example/pending',
    event_types: eventTypes,
  });
  const { name, url } = await box([made.secret], answers);
  const res = await call(`/v1/webhook-endpoints/${made.id}`, { method: 'PUT', key, body: { url } });
  expect(res.status).toBe(200);
  return { name, endpoint: { ...made, url } as Json };
}

export const ping = async (key: string, id: number): Promise<Json> => {
  const res = await call(`/v1/webhook-endpoints/${id}/test`, { method: 'POST', key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json<Json>()).data;
};

export const deliveries = async (key: string, id: number): Promise<Json[]> => {
  const res = await call(`/v1/webhook-endpoints/${id}/deliveries`, { key });
  expect(res.status).toBe(200);
  return (await res.json<Json>()).data;
};

/** Sets columns of an endpoint straight in D1: a state the API would take days to reach. */
export const plantEndpoint = (id: number, set: string, ...params: unknown[]) =>
  d1OfRow('webhook_endpoints', id)
    .prepare(`UPDATE webhook_endpoints SET ${set} WHERE id = ?`)
    .bind(...params, id)
    .run();
