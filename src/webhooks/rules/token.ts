import { shardedSecret } from '../../core/sharded-secret';

const tokens = shardedSecret('whk_');

/**
 * A webhook URL's token: 256 random bits, and its shard after `whk_s<k>_` unless shard 0
 * (src/core/sharded-secret.ts). Anyone holding the URL can post events.
 */
export const newWebhookToken = (shard: number): string => tokens.make(shard);

/** The shard a webhook token names, when it is shaped like one. */
export const webhookTokenShard = (value: string): number | undefined => tokens.shardOf(value);
