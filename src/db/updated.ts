import { type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { ResourceTable } from './schema';

/** `updated_at` for an update: now, yet always past the stored value, so every PUT visibly moves it. */
export const bumped = (column: AnySQLiteColumn): SQL<number> =>
  sql<number>`max(${Date.now()}, ${column} + 1)`;

/**
 * `created_at` (and `updated_at`) of a new row of `table`: `now`, or the account's newest
 * created_at if a clock behind it would put the row before its elders. Rows then keep the same
 * order by created_at as by id, which searched lists rely on (drizzle/0006_created_in_id_order.sql).
 */
export const created = (table: ResourceTable, accountId: number, now: number): SQL<number> =>
  sql<number>`max(${now}, coalesce((select max(${table.createdAt}) from ${table} where ${table.accountId} = ${accountId}), 0))`;
