// `npm run bench:move [-- options]`: issue 36's move figure. Two local shards under `wrangler dev`
// (wrangler.shards.toml, as `SHARDS=2 npm run dev` writes it) over a fresh directory; an account on
// shard 0 seeded with contacts through the batch endpoint; then POST /admin/accounts/{id}/move to
// shard 1 while writers create contacts and senders post webhook calls against that account. When
// the move is done and the queues are quiet, the Worker stops and each shard is counted: every
// acknowledged contact and event on shard 1 once, nothing of the account left on shard 0. Also what
// the freeze triggers cost a write (SQLite in this process, A/B). See docs/scaling.md, "The figure".
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { client, createAccount, field } from '../bench/api.mjs';
import { refusals } from '../bench/cli.mjs';
import { startWorker, wrangler } from '../bench/local.mjs';
import { table } from '../bench/report.mjs';
import { machine, machineLine, writeJson } from '../bench/run-info.mjs';
import { seatIdRangeSql } from '../src/core/id-ranges.ts';
import { freezeTriggerSql } from '../src/core/moving-tables.ts';
import { writeShardsConfig } from './shards.mjs';

const usage = `Usage: npm run bench:move -- [options]
  --rows N      contacts seeded before the move (default 100000; each also has its journal entry)
  --writers N   concurrent writers creating contacts during the move (default 4)
  --senders N   concurrent webhook senders during the move (default 2)
  --out FILE    where the JSON goes (default bench/move.json)
  --triggers    only the freeze triggers' cost (SQLite A/B), printed`;
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    writers: { type: 'string', default: '4' },
    senders: { type: 'string', default: '2' },
    out: { type: 'string', default: 'bench/move.json' },
    triggers: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
const { positive } = refusals(usage);
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const rows = positive('rows', args.rows);
const writers = positive('writers', args.writers);
const senders = positive('senders', args.senders);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** @param {string} text */
const progress = (text) => process.stderr.write(`${text}\n`);
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One SQL statement on shard `binding` of the run's local D1s; its rows.
 * @param {string} dir @param {string} config @param {string} log @param {string} binding @param {string} sql
 * @returns {Promise<Record<string, unknown>[]>}
 */
async function execute(dir, config, log, binding, sql) {
  const out = await wrangler(
    ['d1', 'execute', binding, '--local', '--persist-to', dir, '-c', config, '--json', '--command', sql],
    log,
    true,
  );
  return JSON.parse(out)[0].results;
}

/**
 * Seeds `count` contacts in batches of 100, `parallel` at a time.
 * @param {import('../bench/api.mjs').Api} api @param {number} count @param {number} parallel
 */
async function seed(api, count, parallel) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const from = next;
      next += 100;
      const items = Array.from({ length: Math.min(100, count - from) }, (_, i) => ({
        op: 'create',
        data: { name: `Seeded ${from + i}` },
      }));
      const res = await api('POST', '/v1/contacts/batch', { items });
      if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (from % 10_000 === 0) progress(`   seeded ${from + items.length}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * The load during the move: writers creating contacts, senders posting webhook calls, until `until()`.
 * @param {string} origin @param {string} apiKey @param {string} hookPath @param {() => boolean} until
 */
function load(origin, apiKey, hookPath, until) {
  const api = client(origin, apiKey);
  const writes = {
    attempted: 0,
    created: 0,
    refused_503: 0,
    other: 0,
    first_503: 0,
    last_503: 0,
    /** @type {number[]} */ ids: [],
  };
  const posts = { sent: 0, accepted_204: 0, other: 0 };
  const writer = async () => {
    while (!until()) {
      writes.attempted += 1;
      const res = await api('POST', '/v1/contacts', { name: `During ${writes.attempted}` }).catch((err) => ({
        status: 0,
        body: String(err),
        serverTiming: '',
      }));
      if (res.status === 201) {
        writes.created += 1;
        writes.ids.push(Number(field(res.body, 'data', 'id')));
      } else if (res.status === 503 && field(res.body, 'code') === 'account_moving') {
        writes.refused_503 += 1;
        writes.first_503 ||= Date.now();
        writes.last_503 = Date.now();
        await sleep(200);
      } else {
        writes.other += 1;
        progress(`   write answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
  };
  const sender = async () => {
    while (!until()) {
      posts.sent += 1;
      try {
        const res = await fetch(origin + hookPath, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ nome: `Lead ${posts.sent}` }),
        });
        await res.arrayBuffer();
        if (res.status === 204) posts.accepted_204 += 1;
        else posts.other += 1;
      } catch {
        posts.other += 1;
      }
    }
  };
  const running = [...Array.from({ length: writers }, writer), ...Array.from({ length: senders }, sender)];
  return { writes, posts, done: Promise.all(running) };
}

/**
 * Waits for the move to end; the move as GET /admin/moves/{id} shows it.
 * @param {import('../bench/api.mjs').Api} admin @param {number} id
 * @returns {Promise<unknown>}
 */
async function awaitMove(
  admin,
  id,
  deadline = Date.now() + Number(process.env.MOVE_DEADLINE_MS ?? 30 * 60_000),
) {
  let phase = '';
  while (Date.now() < deadline) {
    const res = await admin('GET', `/admin/moves/${id}`);
    const move = field(res.body, 'data');
    const state = field(move, 'state');
    if (field(move, 'phase') !== phase) {
      phase = String(field(move, 'phase'));
      progress(`   ${state}: ${phase}`);
    }
    if (state === 'done' || state === 'failed') return move;
    await sleep(250);
  }
  throw new Error(`move ${id} still in ${phase} at the deadline`);
}

/**
 * What the freeze triggers cost a write, measured on SQLite in this process (D1 runs SQLite): the
 * schema's migrations in memory, contacts inserted one statement at a time, in rounds alternating
 * with the contacts' freeze triggers and without them (dropped and made again from the one list),
 * so the machine's other load falls on both alike; the medians of the rounds.
 */
async function triggerCost(rounds = 6, count = 5_000) {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(':memory:');
  db.exec('PRAGMA foreign_keys = ON');
  const dir = join(root, 'drizzle');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort())
    for (const statement of readFileSync(join(dir, file), 'utf8').split('--> statement-breakpoint'))
      if (statement.trim()) db.exec(statement);
  db.exec("INSERT INTO accounts (id, name, created_at) VALUES (1, 'A', 0)");
  const insert = db.prepare(
    'INSERT INTO contacts (account_id, name, name_norm, created_at, updated_at) VALUES (1, ?, ?, ?, ?)',
  );
  const triggers = freezeTriggerSql().filter((sql) => sql.includes(' ON contacts\n'));
  let n = 0;
  const run = () => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < count; i++) {
      n += 1;
      insert.run(`Nome ${n}`, `nome ${n}`, n, n);
    }
    return Number(process.hrtime.bigint() - started) / 1000 / count;
  };
  /** @param {number[]} xs */
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  run(); // warm-up
  const [withTriggers, without] = [/** @type {number[]} */ ([]), /** @type {number[]} */ ([])];
  const drop = () => {
    for (const op of ['insert', 'update', 'delete']) db.exec(`DROP TRIGGER contacts_freeze_${op}`);
  };
  const make = () => {
    for (const sql of triggers) db.exec(sql);
  };
  // Which goes first alternates too: the table grows through the run.
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      withTriggers.push(run());
      drop();
      without.push(run());
    } else {
      drop();
      without.push(run());
      make();
      withTriggers.push(run());
      drop();
    }
    make();
  }
  return {
    inserts_per_round: count,
    rounds,
    us_per_insert_with: median(withTriggers),
    us_per_insert_without: median(without),
  };
}

if (args.triggers) {
  console.log(JSON.stringify(await triggerCost(), null, 2));
  process.exit(0);
}
const loadAtStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'crm-bench-move-'));
const log = join(dir, 'wrangler.log');
const config = writeShardsConfig(root, 2);
/** @type {import('../bench/local.mjs').LocalWorker | undefined} */
let worker;
process.once('SIGINT', async () => {
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
try {
  progress('the freeze triggers\u2019 cost (SQLite, A/B)');
  const triggers = await triggerCost();
  progress(
    `   ${triggers.us_per_insert_with.toFixed(2)} µs with, ${triggers.us_per_insert_without.toFixed(2)} µs without`,
  );
  progress(`migrating two fresh local shards in ${dir}`);
  for (const binding of ['DB', 'DB_1'])
    await wrangler(['d1', 'migrations', 'apply', binding, '--local', '--persist-to', dir, '-c', config], log);
  await execute(dir, config, log, 'DB_1', seatIdRangeSql(1).join('; '));
  const adminToken = randomBytes(24).toString('hex');
  worker = await startWorker({ persistTo: dir, adminToken, log, config });
  const admin = client(worker.origin, adminToken);
  const { accountId, apiKey } = await createAccount(worker.origin, adminToken, 'Move benchmark');
  const api = client(worker.origin, apiKey);
  const hook = await api('POST', '/v1/inbound-webhooks', {
    name: 'Leads',
    fields: [{ key: 'nome', type: 'string', target: 'contact.name' }],
  });
  const hookPath = new URL(String(field(hook.body, 'data', 'url'))).pathname;
  progress(`seeding ${rows} contacts on shard 0`);
  const seedStarted = Date.now();
  await seed(api, rows, 4);
  const seedSeconds = (Date.now() - seedStarted) / 1000;

  progress(`moving account ${accountId} to shard 1 under load`);
  let finished = false;
  const traffic = load(worker.origin, apiKey, hookPath, () => finished);
  await sleep(1000);
  const started = Date.now();
  const res = await admin('POST', `/admin/accounts/${accountId}/move`, { to: 1 });
  if (res.status !== 202) throw new Error(`move answered ${res.status}: ${JSON.stringify(res.body)}`);
  const move = await awaitMove(admin, Number(field(res.body, 'data', 'id')));
  const moveSeconds = (Date.now() - started) / 1000;
  if (field(move, 'state') !== 'done') progress(`   the move failed: ${field(move, 'error')}`);
  await sleep(1000);
  finished = true;
  await traffic.done;
  progress(`move ${field(move, 'state')} in ${moveSeconds.toFixed(1)} s; letting the queues settle`);
  // The events' queue: every accepted call processed before counting.
  for (let i = 0; i < 240; i++) {
    const hookId = field(hook.body, 'data', 'id');
    const pending = await api('GET', `/v1/inbound-webhooks/${hookId}/events?status=pending&limit=1`);
    const page = field(pending.body, 'data');
    if (Array.isArray(page) && page.length === 0) break;
    await sleep(500);
  }
  await worker.stop();
  worker = undefined;

  /** @param {string} binding @param {string} sql */
  const count = async (binding, sql) => Number((await execute(dir, config, log, binding, sql))[0]?.n ?? 0);
  const { writes, posts } = traffic;
  const contacts1 = await count('DB_1', `SELECT count(*) AS n FROM contacts WHERE account_id = ${accountId}`);
  const distinct1 = await count(
    'DB_1',
    `SELECT count(DISTINCT id) AS n FROM contacts WHERE account_id = ${accountId}`,
  );
  const ids = new Set(writes.ids);
  const missing = await count(
    'DB_1',
    `SELECT ${ids.size} - count(*) AS n FROM contacts WHERE account_id = ${accountId} AND id IN (${[...ids].join(',') || 0})`,
  );
  const events1 = await count(
    'DB_1',
    `SELECT count(*) AS n FROM inbound_events WHERE account_id = ${accountId}`,
  );
  const left0 = await count(
    'DB',
    `SELECT (SELECT count(*) FROM contacts WHERE account_id = ${accountId}) + (SELECT count(*) FROM inbound_events WHERE account_id = ${accountId}) + (SELECT count(*) FROM journal_entries WHERE account_id = ${accountId}) + (SELECT count(*) FROM held_events WHERE account_id = ${accountId}) AS n`,
  );
  const expectedContacts = rows + writes.created;
  const results = {
    date: new Date().toISOString(),
    rows_seeded: rows,
    seed_seconds: seedSeconds,
    move: {
      state: field(move, 'state'),
      seconds: moveSeconds,
      frozen_seconds: field(move, 'frozen_seconds'),
      phases: {
        copy_s:
          (Date.parse(String(field(move, 'frozen_at'))) - Date.parse(String(field(move, 'created_at')))) /
          1000,
        freeze_to_switch_s:
          (Date.parse(String(field(move, 'switched_at'))) - Date.parse(String(field(move, 'frozen_at')))) /
          1000,
        clean_and_drain_s:
          (Date.parse(String(field(move, 'finished_at'))) - Date.parse(String(field(move, 'switched_at')))) /
          1000,
      },
      tables: field(move, 'tables'),
    },
    writes: {
      attempted: writes.attempted,
      created_201: writes.created,
      refused_503: writes.refused_503,
      other: writes.other,
      seconds_answering_503: writes.first_503 ? (writes.last_503 - writes.first_503) / 1000 : 0,
    },
    webhook_posts: posts,
    after: {
      contacts_on_shard_1: contacts1,
      contacts_expected: expectedContacts,
      contacts_distinct_ids: distinct1,
      acknowledged_contacts_missing: missing,
      events_on_shard_1: events1,
      events_expected: posts.accepted_204,
      rows_left_on_shard_0: left0,
      lost: Math.max(0, expectedContacts - contacts1) + missing + Math.max(0, posts.accepted_204 - events1),
      duplicated:
        contacts1 -
        distinct1 +
        Math.max(0, contacts1 - expectedContacts) +
        Math.max(0, events1 - posts.accepted_204),
    },
    triggers,
    machine: machine(loadAtStart),
  };
  writeJson(args.out, results);
  console.log(
    table(
      ['Figure', 'Value'],
      [
        ['Rows seeded (contacts, each with its journal entry)', String(rows)],
        ['Move state', String(results.move.state)],
        ['Move duration (s)', moveSeconds.toFixed(1)],
        ['Copy with writes open (s)', results.move.phases.copy_s.toFixed(1)],
        ['Freeze to switch: prune, reconcile, verify (s)', results.move.phases.freeze_to_switch_s.toFixed(1)],
        ['Clean-up and drain (s)', results.move.phases.clean_and_drain_s.toFixed(1)],
        ['Writes frozen, per the move (s)', String(results.move.frozen_seconds)],
        [
          'Writes answering 503, first to last, per the clients (s)',
          results.writes.seconds_answering_503.toFixed(1),
        ],
        [
          'Writes attempted / 201 / 503 / other',
          `${writes.attempted} / ${writes.created} / ${writes.refused_503} / ${writes.other}`,
        ],
        ['Webhook posts sent / 204 / other', `${posts.sent} / ${posts.accepted_204} / ${posts.other}`],
        ['Contacts on shard 1 / expected', `${contacts1} / ${expectedContacts}`],
        ['Events on shard 1 / posts answered 204', `${events1} / ${posts.accepted_204}`],
        ['Rows of the account left on shard 0', String(left0)],
        ['Lost / duplicated', `${results.after.lost} / ${results.after.duplicated}`],
        [
          'Freeze triggers: µs per insert with / without',
          `${triggers.us_per_insert_with.toFixed(2)} / ${triggers.us_per_insert_without.toFixed(2)}`,
        ],
      ],
      ['l', 'r'],
    ),
  );
  console.log(`\n${machineLine(loadAtStart)}`);
} catch (err) {
  progress(`wrangler's log, its last lines:\n${readFileSync(log, 'utf8').split('\n').slice(-40).join('\n')}`);
  throw err;
} finally {
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
}
