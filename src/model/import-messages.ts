import { messageShard } from '../core/message-shard';

/**
 * A message of the `crm-imports` queue: one chunk of an import to read and write, everything it
 * needs but the file (so a chunk reads no import row: its status and offset are checked inside
 * its write batch, src/imports/store.ts).
 */
export type ImportMessage = {
  kind: 'import_chunk';
  import_id: number;
  /** The SHA-256 of the API key that started it: every write is scoped by it, as the batch's. */
  key_hash: string;
  resource: string;
  mode: 'create' | 'upsert' | 'update';
  file_key: string;
  delimiter: string;
  mapping: (string | null)[];
  /** The byte the chunk starts at, and its line. */
  offset: number;
  line: number;
  /** The shard of the import's account (src/db/shards.ts); none in a message sent before shards: 0. */
  shard?: number;
};

export const isImportMessage = (body: unknown): body is ImportMessage =>
  typeof body === 'object' &&
  body !== null &&
  (body as { kind?: unknown }).kind === 'import_chunk' &&
  messageShard(body) !== undefined;
