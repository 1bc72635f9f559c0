import { z } from 'zod';
import { MessageShard } from '../contracts/queue';

/**
 * A message of the `crm-imports` queue: one chunk of an import to read and write, everything it
 * needs but the file (so a chunk reads no import row: its status and offset are checked inside
 * its write batch, src/imports/store.ts).
 */
export const ImportMessage = z.object({
  kind: z.literal('import_chunk'),
  import_id: z.number().int(),
  /** The SHA-256 of the API key that started it: every write is scoped by it, as the batch's. */
  key_hash: z.string(),
  resource: z.string(),
  mode: z.enum(['create', 'upsert', 'update']),
  file_key: z.string(),
  delimiter: z.string(),
  mapping: z.array(z.string().nullable()),
  /** The byte the chunk starts at, and its line. */
  offset: z.number().int().min(0),
  line: z.number().int().min(0),
  shard: MessageShard,
});
export type ImportMessage = z.infer<typeof ImportMessage>;

export const isImportMessage = (body: unknown): body is ImportMessage =>
  ImportMessage.safeParse(body).success;

/** Where an import stands, as its row holds it: what its next chunk's message is made of. */
export type ImportState = {
  id: number;
  keyHash: string;
  resource: string;
  mode: string;
  fileKey: string;
  delimiter: string;
  mapping: (string | null)[];
  offset: number;
  line: number;
};

/**
 * The message of an import's next chunk on shard `shard`, from its row: its first (imports/create.ts)
 * or, after a move, the one its old shard's freeze refused (moves/switch.ts).
 */
export const nextChunk = (row: ImportState, shard: number): ImportMessage => ({
  kind: 'import_chunk',
  import_id: row.id,
  key_hash: row.keyHash,
  resource: row.resource,
  // Stored from this contract's own enum when the import started.
  mode: row.mode as ImportMessage['mode'],
  file_key: row.fileKey,
  delimiter: row.delimiter,
  mapping: row.mapping,
  offset: row.offset,
  line: row.line,
  shard,
});
