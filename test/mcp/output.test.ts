import { describe, expect, it } from 'vitest';
import { create, type Json, newAccount } from '../helpers';
import { mcpClient, ok, REVISIONS } from './helpers';

describe.each(REVISIONS)('tool output schemas, over $name', (revision) => {
  it("every tool announces its /v1 answer's schema, and what it returns has that shape", async () => {
    const account = await newAccount();
    await create(account.key, '/v1/companies', { name: 'Acme', cnpj: '11222333000181' });
    const client = await mcpClient(revision, account.key);
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
    const byName = (name: string): Json => tools.find((tool) => tool.name === name)?.outputSchema;
    const list = byName('list_companies');
    expect(list.properties.data.type).toBe('array');
    expect(Object.keys(list.properties.data.items.properties)).toContain('cnpj');
    expect(byName('get_record').anyOf).toHaveLength(6);
    expect(byName('create_record').anyOf).toHaveLength(4);
    expect(byName('update_record').anyOf).toHaveLength(4);
    const changes = byName('list_changes').properties.data.items.properties;
    expect(Object.keys(changes)).toEqual(expect.arrayContaining(['type', 'record_id', 'changed_fields']));
    expect(byName('get_record_history').properties).toEqual(byName('list_changes').properties);
    const page = await ok(client, 'list_companies');
    expect(Object.keys(page).every((key) => key in list.properties)).toBe(true);
    for (const key of Object.keys(page.data[0]))
      expect(list.properties.data.items.properties, key).toHaveProperty(key);
    await client.close();
  });
});
