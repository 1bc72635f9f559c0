import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, create, json, newAccount } from '../helpers';
import { page, panel, signIn } from '../panel/browser';
import { asForm, submitForm } from '../panel/form-submit';
import { settings, TIMEOUT } from './checks';
import { webhookConfig } from './webhook-configs';

let key: string;
let cookie: string;
let users: number[];

beforeAll(async () => {
  ({ key } = await newAccount('Panel saves'));
  users = [];
  for (const name of ['Ana', 'Bia <b>', 'Caio & Cia']) {
    users.push((await create(key, '/v1/users', { name, email: `${users.length}@example.com` })).id);
  }
  cookie = await signIn(key);
});

const stored = async (id: number) => {
  const { data } = await json(await call(`/v1/inbound-webhooks/${id}`, { key }));
  return { name: data.name, fields: data.fields, flows: data.flows };
};

/** Renders the edit page, submits its form as a browser would (less the names `drop`), expects 303. */
async function save(id: number, drop: RegExp | undefined): Promise<void> {
  const path = `/panel/webhooks/${id}`;
  const entries = submitForm(await page(await panel(path, { cookie })), path);
  const form = asForm(entries.filter(([name]) => !drop?.test(name)));
  const res = await panel(path, { cookie, form });
  if (res.status !== 303) throw new Error(`save: ${res.status} ${(await res.text()).slice(0, 3000)}`);
}

describe('the edit form', () => {
  it(
    'saves every configuration the API accepts unchanged, whole or half by half',
    async () => {
      await fc.assert(
        fc.asyncProperty(webhookConfig(users), async (config) => {
          const res = await call('/v1/inbound-webhooks', { key, method: 'POST', body: config });
          const created = await json(res);
          expect(res.status, JSON.stringify(created)).toBe(201);
          const before = await stored(created.data.id);
          // Without the digests of the halves, the form writes all it shows: every member goes
          // through the form's controls and back.
          await save(created.data.id, /^was\./);
          expect(await stored(created.data.id)).toEqual(before);
          // As the browser sends it: the halves it left alone are not written at all.
          await save(created.data.id, undefined);
          expect(await stored(created.data.id)).toEqual(before);
        }),
        settings(25),
      );
    },
    TIMEOUT * 2,
  );
});
