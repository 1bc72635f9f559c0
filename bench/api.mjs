// Plain HTTP calls to the Worker outside the load: setting up and sampling.

/**
 * @typedef {{ status: number, body: unknown, serverTiming: string }} Answer
 * @typedef {(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>} Api
 */

/**
 * Calls to `origin` with `token` as the bearer (an API key, or the admin token).
 * @param {string} origin @param {string} token
 * @returns {Api}
 */
export const client =
  (origin, token) =>
  async (method, path, body, headers = {}) => {
    const res = await fetch(origin + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    /** @type {unknown} */
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text for an error message.
    }
    return { status: res.status, body: parsed, serverTiming: res.headers.get('Server-Timing') ?? '' };
  };

/**
 * `value.a.b.c` of a parsed JSON body, or undefined anywhere along the way.
 * @param {unknown} value @param {string[]} keys @returns {unknown}
 */
export function field(value, ...keys) {
  let current = value;
  for (const key of keys) {
    current =
      current !== null && typeof current === 'object'
        ? Object.getOwnPropertyDescriptor(current, key)?.value
        : undefined;
  }
  return current;
}

/**
 * A new account and its first API key, through the admin API.
 * @param {string} origin @param {string} adminToken @param {string} name
 * @returns {Promise<{ accountId: number, apiKey: string }>}
 */
export async function createAccount(origin, adminToken, name) {
  const created = await client(origin, adminToken)('POST', '/admin/accounts', { name });
  const accountId = Number(field(created.body, 'data', 'account', 'id'));
  const apiKey = field(created.body, 'data', 'api_key', 'key');
  if (created.status !== 201 || !Number.isInteger(accountId) || typeof apiKey !== 'string') {
    throw new Error(`POST /admin/accounts answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  return { accountId, apiKey };
}
