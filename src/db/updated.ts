import { type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';

/** `updated_at` for an update: now, yet always past the stored value, so every PUT visibly moves it. */
export const bumped = (column: AnySQLiteColumn): SQL<number> =>
  sql<number>`max(${Date.now()}, ${column} + 1)`;
