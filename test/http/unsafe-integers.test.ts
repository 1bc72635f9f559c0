import { describe, expect, it } from 'vitest';
import { unsafeIntegers } from '../../src/core/json-numbers';
import { call, expectProblem, json, newAccount } from '../helpers';
import { eventsOf, expectStored, hookWith, rawPost } from '../routes/hooks-support';

// 2^53 + 1: JSON.parse reads it as 9007199254740992, so only the text tells it was sent.
const PAST = '9007199254740993';

const post = (key: string, path: string, text: string, method = 'POST') =>
  call(path, { method, key, body: text, headers: { 'Content-Type': 'application/json' } });

describe('a whole number beyond 2^53 - 1', () => {
  it('is a 422 on /v1 naming the field, in custom_fields or a number field, and nothing is stored', async () => {
    const { key } = await newAccount();
    const created = await post(key, '/v1/contacts', `{"name":"Ana","custom_fields":{"pedido":${PAST}}}`);
    const problem = await expectProblem(created, 422, 'validation_failed');
    expect(problem.errors).toEqual([
      {
        path: 'custom_fields.pedido',
        code: 'unsafe_integer',
        params: { sent: PAST, outcome: 'refused', becomes: '9007199254740992' },
        message: `${PAST} is beyond ±9007199254740991, the whole numbers a JSON number holds exactly: it would be stored as 9007199254740992. Send a smaller number, or the digits as a string.`,
      },
    ]);
    const listed = await json(await call('/v1/contacts', { key }));
    expect(listed.data).toEqual([]);

    // On an update too, a negative one and one in a list, each named; a safe one passes.
    const contact = (await json(await post(key, '/v1/contacts', '{"name":"Bia"}'))).data;
    const updated = await post(
      key,
      `/v1/contacts/${contact.id}`,
      `{"custom_fields":{"a":-${PAST},"b":9007199254740991,"c":[1,123456789012345678901]}}`,
      'PUT',
    );
    const refused = await expectProblem(updated, 422, 'validation_failed');
    expect(refused.errors.map((e: { path: string }) => e.path)).toEqual([
      'custom_fields.a',
      'custom_fields.c.1',
    ]);
    expect((await json(await call(`/v1/contacts/${contact.id}`, { key }))).data.custom_fields).toEqual({});

    // A number field: a webhook's condition value.
    const hook = await post(
      key,
      '/v1/inbound-webhooks',
      `{"name":"Site","fields":[{"key":"n","type":"number"}],"flows":[{"when":{"field":"n","op":"eq","value":${PAST}},"actions":[]}]}`,
    );
    const hookProblem = await expectProblem(hook, 422, 'validation_failed');
    expect(hookProblem.errors.map((e: { path: string }) => e.path)).toEqual(['flows.0.when.value']);
  });

  it('is kept on webhook ingest, with a warning naming its path and what it is read as', async () => {
    const { key, hook } = await hookWith();
    const body = `{"lead":{"nome":"Ana","pedido":${PAST}},"itens":[1,-${PAST}],"ok":9007199254740991}`;
    await expectStored(await rawPost(hook.path, body, { 'Content-Type': 'application/json' }));
    const [event] = await eventsOf(key, hook.id);
    expect(event.warnings).toEqual([
      {
        path: 'lead.pedido',
        code: 'unsafe_integer',
        params: { sent: PAST, outcome: 'rounded', becomes: '9007199254740992' },
        message: `${PAST} is beyond ±9007199254740991, the whole numbers a JSON number holds exactly, so it is read as 9007199254740992; send such a number as a string.`,
      },
      expect.objectContaining({ path: 'itens.1', code: 'unsafe_integer' }),
    ]);
  });

  it('is found in the text at its exact path, whatever surrounds it', () => {
    expect(unsafeIntegers(`{"a":"${PAST}","b":1.5e300,"c":12345678901234567.5}`)).toEqual([]);
    expect(
      unsafeIntegers(`{"x\\"y,":[{"k":[true,null,${PAST}]}], "z" : { "": -${PAST}0 }, "w":[[],[${PAST}]]}`),
    ).toEqual([
      { path: 'x"y,.0.k.2', sent: PAST },
      { path: 'z.', sent: `-${PAST}0` },
      { path: 'w.1.0', sent: PAST },
    ]);
    const deep = `${'['.repeat(100_000)}${PAST}${']'.repeat(100_000)}`;
    expect(unsafeIntegers(deep)).toHaveLength(1);
  });
});
