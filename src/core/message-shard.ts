/**
 * The shard a queue message belongs to (src/db/shards.ts). Every message names it; one sent before
 * there were shards has none and means shard 0, so a deploy never strands a message in flight.
 * Undefined for a malformed one (not a whole number from 0): never read as some other shard.
 */
export function messageShard(body: object): number | undefined {
  const shard = (body as { shard?: unknown }).shard;
  if (shard === undefined) return 0;
  return typeof shard === 'number' && Number.isSafeInteger(shard) && shard >= 0 ? shard : undefined;
}
