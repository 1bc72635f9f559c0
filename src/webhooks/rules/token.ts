import { toBase64url } from '../../core/base64url';

const WEBHOOK_TOKEN_PREFIX = 'whk_';
const WEBHOOK_TOKEN_PATTERN = /^whk_[A-Za-z0-9_-]{43}$/;

/** A webhook URL's token: 256 random bits. Anyone holding the URL can post events. */
export function newWebhookToken(): string {
  return WEBHOOK_TOKEN_PREFIX + toBase64url(crypto.getRandomValues(new Uint8Array(32)));
}

export const looksLikeWebhookToken = (value: string): boolean => WEBHOOK_TOKEN_PATTERN.test(value);
