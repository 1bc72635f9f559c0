import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

async function account(name: string): Promise<number> {
  const row = await env.DB.prepare('INSERT INTO accounts (name, created_at) VALUES (?, 1) RETURNING id')
    .bind(name)
    .first<{ id: number }>();
  if (!row) throw new Error('no account');
  return row.id;
}

async function user(accountId: number, email: string): Promise<number> {
  const row = await env.DB.prepare(
    'INSERT INTO users (account_id, name, name_norm, email, email_norm, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, 1) RETURNING id',
  )
    .bind(accountId, 'U', 'u', email, email)
    .first<{ id: number }>();
  if (!row) throw new Error('no user');
  return row.id;
}

const insertContact = (accountId: number, ownerId: number | null) =>
  env.DB.prepare(
    "INSERT INTO contacts (account_id, name, name_norm, owner_id, custom_fields, created_at, updated_at) VALUES (?, 'C', 'c', ?, '{}', 1, 1)",
  )
    .bind(accountId, ownerId)
    .run();

describe('schema: tenant isolation in the database itself', () => {
  it('refuses a contact whose owner is a user of another account', async () => {
    const a = await account('A');
    const b = await account('B');
    const userOfB = await user(b, 'b@example.com');
    await expect(insertContact(a, userOfB)).rejects.toThrow(/FOREIGN KEY constraint failed/);
    await expect(insertContact(b, userOfB)).resolves.toMatchObject({ success: true });
    await expect(insertContact(a, null)).resolves.toMatchObject({ success: true });
  });

  it('refuses a deal linked to a contact of another account', async () => {
    const a = await account('A');
    const b = await account('B');
    await insertContact(b, null);
    const contactOfB = await env.DB.prepare('SELECT id FROM contacts WHERE account_id = ?')
      .bind(b)
      .first<{ id: number }>();
    const insertDeal = (accountId: number) =>
      env.DB.prepare(
        "INSERT INTO deals (account_id, name, name_norm, contact_id, custom_fields, created_at, updated_at) VALUES (?, 'D', 'd', ?, '{}', 1, 1)",
      )
        .bind(accountId, contactOfB?.id)
        .run();
    await expect(insertDeal(a)).rejects.toThrow(/FOREIGN KEY constraint failed/);
    await expect(insertDeal(b)).resolves.toMatchObject({ success: true });
  });
});
