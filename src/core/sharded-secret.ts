/**
 * A secret that names its shard (docs/scaling.md): shard 0's is `<prefix><43 chars>`, as every
 * secret made before there were shards, and shard k's (k ≥ 1) `<prefix>s<k>_<43 chars>`. The random
 * part is always 43 base64url characters, so the length alone tells the two forms apart (a shard 0
 * secret whose random part begins with `s1_` is still 43 long).
 */
import { toBase64url } from './base64url';

const RANDOM = '[A-Za-z0-9_-]{43}';

export type ShardedSecret = {
  /** A new secret of shard `shard`: 256 random bits, base64url. */
  make(shard: number): string;
  /** The shard a well-formed secret names (not yet checked against the Worker's), else undefined. */
  shardOf(value: string): number | undefined;
};

export function shardedSecret(prefix: string): ShardedSecret {
  const plain = new RegExp(`^${prefix}${RANDOM}$`);
  const sharded = new RegExp(`^${prefix}s([1-9][0-9]{0,3})_${RANDOM}$`);
  return {
    make: (shard) =>
      `${prefix}${shard === 0 ? '' : `s${shard}_`}${toBase64url(crypto.getRandomValues(new Uint8Array(32)))}`,
    shardOf: (value) => {
      if (plain.test(value)) return 0;
      const match = sharded.exec(value);
      return match ? Number(match[1]) : undefined;
    },
  };
}
