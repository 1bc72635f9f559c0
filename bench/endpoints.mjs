// What the benchmark loads, in order: the floor, reads, then writes (they add rows, so they run
// after every read has seen the seeded size). Adding an endpoint is adding one entry.
import { field } from './api.mjs';
import { CATEGORIES, cnpjFor, maskCnpj, SEGMENTS, USERS } from './seed.mjs';

/**
 * @typedef {import('./load.mjs').Call} Call
 * @typedef {import('./seed.mjs').Probe} Probe
 *
 * @typedef {object} Endpoint
 * @property {string} name the same at every size: `{...}` stands for a value taken from the seeded rows
 * @property {'floor' | 'list' | 'get' | 'write'} kind `list` ones are held to the growth budget
 * @property {() => Call} next the next request to send
 * @property {(api: import('./api.mjs').Api) => Promise<string | undefined>} [prepare] runs once before; a string is why to skip
 */

/** @param {number} n */
const between = (n) => 1 + Math.floor(Math.random() * n);
/** @template T @param {readonly T[]} list @returns {T} */
const any = (list) => /** @type {T} */ (list[Math.floor(Math.random() * list.length)]);
/** @param {number} ms */
const day = (ms) => new Date(ms).toISOString().slice(0, 10);

/**
 * A GET whose query is the same on every request.
 * @param {string} name @param {string} path @param {Record<string, string>} [query]
 * @returns {Endpoint}
 */
function list(name, path, query = {}) {
  const search = new URLSearchParams(query).toString();
  const url = search ? `${path}?${search}` : path;
  return { name, kind: 'list', next: () => ({ method: 'GET', path: url }) };
}

/**
 * A list as an MCP tool call (issue 37): the same /v1 list through POST /mcp, as a client of
 * `revision` sends it: a 2025-11-25 client without initialize first (the server is stateless), a
 * 2026-07-28 one with its Mcp-Method and Mcp-Name headers and the revision in the request's _meta.
 * @param {string} tool @param {'2025-11-25' | '2026-07-28'} revision @returns {Endpoint}
 */
function mcpList(tool, revision) {
  const modern = revision === '2026-07-28';
  const meta = {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const params = { name: tool, arguments: {}, ...(modern && { _meta: meta }) };
  const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params };
  const headers = {
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': revision,
    ...(modern && { 'Mcp-Method': 'tools/call', 'Mcp-Name': tool }),
  };
  return {
    name: `GET /v1/companies as MCP${modern ? ' 2026-07-28' : ''} tools/call ${tool}`,
    kind: 'list',
    next: () => ({ method: 'POST', path: '/mcp', body: message, headers }),
  };
}

/**
 * The webhook event log's list and its searches (issue 23, "find a lead").
 * @param {Probe} probe @returns {Endpoint[]}
 */
function eventSearches(probe) {
  const path = `/v1/inbound-webhooks/${probe.webhookId}/events`;
  return [
    list('GET /v1/inbound-webhooks/{id}/events', path),
    list('GET …/events?q={a phone, another format}', path, { q: probe.eventPhone }),
    list('GET …/events?q={an email}', path, { q: probe.eventEmail }),
    list('GET …/events?q={a name}', path, { q: probe.eventName }),
    list('GET …/events?q=gmail.com', path, { q: 'gmail.com' }),
    list('GET …/events?q=zzzz (no match)', path, { q: 'zzzz' }),
    list('GET …/events?has_warnings=true', path, { has_warnings: 'true' }),
    list('GET …/events?status=failed&received_at__gte={day}', path, {
      status: 'failed',
      received_at__gte: probe.eventDay,
    }),
    list('GET …/events?q=gmail.com&status=failed&has_warnings=false', path, {
      q: 'gmail.com',
      status: 'failed',
      has_warnings: 'false',
    }),
  ];
}

/**
 * @param {Probe} probe values taken from the seeded rows
 * @returns {Endpoint[]}
 */
export function endpoints(probe) {
  const { rows } = probe;
  // Past every seeded CNPJ, so each POST is a new company.
  let nextCnpj = rows + 1;
  let completed = false;
  let hookToken = '';
  const owner = '3';

  return [
    { name: 'GET /health', kind: 'floor', next: () => ({ method: 'GET', path: '/health' }) },

    ...eventSearches(probe),

    list('GET /v1/companies', '/v1/companies'),
    mcpList('list_companies', '2025-11-25'),
    mcpList('list_companies', '2026-07-28'),
    list('GET /v1/companies?sort=name', '/v1/companies', { sort: 'name' }),
    list('GET /v1/companies?sort=-name', '/v1/companies', { sort: '-name' }),
    list('GET /v1/companies?sort=created_at', '/v1/companies', { sort: 'created_at' }),
    list('GET /v1/companies?name={a name}', '/v1/companies', { name: probe.companyName }),
    list('GET /v1/companies?name__contains=magalhães', '/v1/companies', { name__contains: 'magalhães' }),
    list('GET /v1/companies?name__contains=magalhães&sort=name', '/v1/companies', {
      name__contains: 'magalhães',
      sort: 'name',
    }),
    list('GET /v1/companies?cnpj={masked}', '/v1/companies', { cnpj: maskCnpj(probe.companyCnpj) }),
    list('GET /v1/companies?owner_id=3', '/v1/companies', { owner_id: owner }),
    list('GET /v1/companies?segment=Varejo', '/v1/companies', { segment: 'Varejo' }),
    list('GET /v1/companies?segment__contains=constru', '/v1/companies', { segment__contains: 'constru' }),
    list('GET /v1/companies?created_at__gte={day}&created_at__lt={day+30}', '/v1/companies', {
      created_at__gte: day(probe.createdFrom),
      created_at__lt: day(probe.createdTo),
    }),
    {
      name: 'GET /v1/companies/{id}',
      kind: 'get',
      next: () => ({ method: 'GET', path: `/v1/companies/${between(rows)}` }),
    },

    list('GET /v1/tasks', '/v1/tasks'),
    list('GET /v1/tasks?sort=due_date', '/v1/tasks', { sort: 'due_date' }),
    list('GET /v1/tasks?sort=-due_date', '/v1/tasks', { sort: '-due_date' }),
    list('GET /v1/tasks?owner_id=3', '/v1/tasks', { owner_id: owner }),
    list('GET /v1/tasks?deal_id={a deal}', '/v1/tasks', { deal_id: String(probe.dealId) }),
    list('GET /v1/tasks?category=Ligação', '/v1/tasks', { category: 'Ligação' }),
    list('GET /v1/tasks?due_date__gte={today}&due_date__lt={today+7}', '/v1/tasks', {
      due_date__gte: day(probe.now),
      due_date__lt: day(probe.now + 7 * 86_400_000),
    }),
    list('GET /v1/tasks?is_completed=false', '/v1/tasks', { is_completed: 'false' }),
    list('GET /v1/tasks?owner_id=3&is_completed=false&sort=due_date', '/v1/tasks', {
      owner_id: owner,
      is_completed: 'false',
      sort: 'due_date',
    }),
    list('GET /v1/task-categories', '/v1/task-categories'),
    list('GET /v1/deals?status=open', '/v1/deals', { status: 'open' }),

    {
      name: 'POST /v1/companies',
      kind: 'write',
      next: () => {
        const n = nextCnpj++;
        return {
          method: 'POST',
          path: '/v1/companies',
          body: {
            name: `Comercial Benchmark ${n} Ltda`,
            cnpj: maskCnpj(cnpjFor(n)),
            owner_id: between(USERS),
            segment: any(SEGMENTS),
            follower_ids: [between(USERS), between(USERS)],
          },
        };
      },
    },
    {
      name: 'PUT /v1/companies/{id}',
      kind: 'write',
      next: () => ({
        method: 'PUT',
        path: `/v1/companies/${between(rows)}`,
        body: { segment: any(SEGMENTS), observations: `Revisado em ${new Date().toISOString()}` },
      }),
    },
    {
      name: 'POST /v1/tasks',
      kind: 'write',
      next: () => ({
        method: 'POST',
        path: '/v1/tasks',
        body: {
          deal_id: between(rows),
          name: 'Retornar ligação',
          category: any(CATEGORIES),
          due_date: `${day(probe.now + between(30) * 86_400_000)}T10:00:00-03:00`,
          owner_id: between(USERS),
        },
      }),
    },
    {
      name: 'PUT /v1/tasks/{id}',
      kind: 'write',
      next: () => {
        completed = !completed;
        return {
          method: 'PUT',
          path: `/v1/tasks/${between(rows)}`,
          body: { is_completed: completed, owner_id: between(USERS) },
        };
      },
    },
    {
      name: 'POST /hooks/{token}',
      kind: 'write',
      prepare: async (api) => {
        // A realistic webhook: the consumer upserts a contact and opens a deal for every event,
        // concurrently with the load, as in production.
        const created = await api('POST', '/v1/inbound-webhooks', {
          name: 'Benchmark',
          fields: [
            { key: 'lead.name', type: 'string', required: true, target: 'contact.name' },
            { key: 'lead.email', type: 'email', target: 'contact.email' },
            { key: 'lead.phone', type: 'phone', required: true, target: 'contact.phone' },
          ],
          flows: [
            { action: 'upsert_contact', match_on: ['phone', 'email'] },
            { action: 'create_deal', name: 'Lead {{lead.name}}' },
          ],
        });
        const url = field(created.body, 'data', 'url');
        if (typeof url !== 'string')
          return `POST /v1/inbound-webhooks answered ${created.status} without data.url`;
        hookToken = new URL(url).pathname.slice('/hooks/'.length);
        return undefined;
      },
      next: () => ({
        method: 'POST',
        path: `/hooks/${hookToken}`,
        body: {
          event: 'lead.created',
          lead: { name: 'Fernanda Magalhães', email: 'fernanda@exemplo.com.br', phone: '(11) 98765-4321' },
        },
      }),
    },
  ];
}
