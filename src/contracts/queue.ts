import { z } from 'zod';

/**
 * The shard a queue message belongs to (src/db/shards.ts). A message sent before there were shards
 * has none and means shard 0 (src/core/message-shard.ts), so a deploy never strands one in flight.
 */
export const MessageShard = z.number().int().min(0).optional();
