import { gt, isNull, type SQL } from 'drizzle-orm';
import type { TenantTable, TrashTable } from './schema';

/** How long a trashed row can be restored; the cron purges it after that. */
export const TRASH_DAYS = 30;
export const TRASH_MS = TRASH_DAYS * 86_400_000;

/** WHERE for the live rows of `table`: every read and reference goes through it (none for tables without a trash). */
export const live = (table: TenantTable): SQL | undefined =>
  'deletedAt' in table ? isNull(table.deletedAt) : undefined;

/**
 * WHERE for the rows of `table` in the trash that can still be restored at `now`. Any comparison
 * on deleted_at implies it is not null, so a query with it can walk the trash's partial indexes.
 */
export const restorable = (table: TrashTable, now: number): SQL => gt(table.deletedAt, now - TRASH_MS);
