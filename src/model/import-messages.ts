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
