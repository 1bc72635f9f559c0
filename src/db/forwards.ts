import { isShard, type ShardBindings, shardOf } from './shards';

/**
 * The shard a moved account's credential was forwarded to (`credential_forwards` on shard 0,
 * written at a move's switch: docs/scaling.md, *Forwarding*), by the credential's SHA-256. Asked
 * only when a credential missed on the shard it names, so no other request pays for it.
 */
export async function forwardedShardOf(env: ShardBindings, hash: string): Promise<number | undefined> {
  const row = await shardOf(env, 0)
    .withSession('first-primary')
    .prepare('SELECT shard FROM credential_forwards WHERE hash = ?')
    .bind(hash)
    .first<{ shard: number }>();
  return row && isShard(env, row.shard) ? row.shard : undefined;
}
