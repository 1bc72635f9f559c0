/**
 * The tables holding an account's data, in the order a move copies them (parents before the rows
 * that reference them: D1 checks foreign keys at each statement) — docs/scaling.md, "Moving an
 * account". Pure, so the freeze triggers' migration (drizzle/0032_account_moves.sql) and the move
 * (src/moves/) read the same list; test/moves/ checks it against the schema and the triggers.
 *
 * Left out on purpose: the FTS5 search tables (their base tables' triggers fill and empty them),
 * and the shard-global rows (the directory, the moves, the outbound cursor, d1_migrations,
 * sqlite_sequence), the freezes themselves and the held webhook calls.
 */
export type MovingTable = {
  readonly name: string;
  /** The primary key's columns: a move pages through the table in this order (keyset). */
  readonly key: readonly string[];
  /** The column holding the account id; `via` tables hang off a parent that holds it. */
  readonly account: string;
  /** A table without an account column: its parent table and the column referencing the parent's id. */
  readonly via?: { readonly table: string; readonly column: string };
  /**
   * Counters that triggers on other tables keep (a category's tasks, an account's event bytes):
   * copying those rows moves them on the new shard, so the move writes these tables again last.
   */
  readonly derived?: true;
};

const owned = (name: string): MovingTable => ({ name, key: ['id'], account: 'account_id' });

export const MOVING_TABLES: readonly MovingTable[] = [
  { name: 'accounts', key: ['id'], account: 'id' },
  owned('users'),
  owned('api_keys'),
  owned('companies'),
  { name: 'company_followers', key: ['account_id', 'company_id', 'user_id'], account: 'account_id' },
  owned('contacts'),
  owned('deals'),
  { ...owned('task_categories'), derived: true },
  owned('tasks'),
  { name: 'task_owners', key: ['account_id', 'task_id', 'user_id'], account: 'account_id' },
  owned('inbound_webhooks'),
  owned('inbound_events'),
  { name: 'inbound_event_results', key: ['event_id'], account: 'account_id' },
  { name: 'account_event_storage', key: ['account_id'], account: 'account_id', derived: true },
  { name: 'webhook_event_storage', key: ['webhook_id'], account: 'account_id', derived: true },
  { name: 'webhook_rotations', key: ['webhook_id', 'action'], account: 'account_id' },
  owned('webhook_endpoints'),
  owned('webhook_deliveries'),
  { name: 'webhook_attempts', key: ['account_id', 'delivery_id', 'attempt'], account: 'account_id' },
  { name: 'idempotency_keys', key: ['account_id', 'key'], account: 'account_id' },
  owned('panel_sessions'),
  { name: 'journal_entries', key: ['seq'], account: 'account_id' },
  owned('imports'),
  {
    name: 'import_chunks',
    key: ['import_id', 'offset'],
    account: 'account_id',
    via: { table: 'imports', column: 'import_id' },
  },
];

/** The expression naming a row's account in a trigger on `table` (`NEW` or `OLD`). */
function accountOfRow(table: MovingTable, row: 'NEW' | 'OLD'): string {
  if (!table.via) return `${row}.${table.account}`;
  return `(SELECT ${table.account} FROM ${table.via.table} WHERE id = ${row}.${table.via.column})`;
}

/**
 * The freeze triggers: every insert, update and delete of a frozen account's row aborts with
 * `account_moving` (src/db/errors.ts maps it to a 503), whichever path writes. Deletes pass while
 * the move cleans the old copy (`cleaning`), and so do the counters' updates their triggers make as
 * the counted rows go; the shard being copied to (`incoming`) is not frozen.
 * The WHEN is a primary-key lookup on a table that is empty but for the accounts moving.
 */
export function freezeTriggerSql(): string[] {
  return MOVING_TABLES.flatMap((table) =>
    (['INSERT', 'UPDATE', 'DELETE'] as const).map((op) => {
      const row = op === 'DELETE' ? 'OLD' : 'NEW';
      // A counter's row follows the deletes of the rows it counts (their triggers update it).
      const passes = op === 'DELETE' || (op === 'UPDATE' && table.derived);
      const states = passes ? "('frozen', 'moved')" : "('frozen', 'moved', 'cleaning')";
      return [
        `CREATE TRIGGER ${table.name}_freeze_${op.toLowerCase()} BEFORE ${op} ON ${table.name}`,
        `WHEN EXISTS (SELECT 1 FROM account_freezes WHERE account_id = ${accountOfRow(table, row)} AND state IN ${states}) BEGIN`,
        "  SELECT RAISE(ABORT, 'account_moving');",
        'END;',
      ].join('\n');
    }),
  );
}
