// Part of `npm test`: the Worker's bundle, minified as `wrangler deploy` uploads it, stays within a
// budget. Issue 24 asked for a bundle no larger than at its start (799.69 KiB); the budget sits a
// little above today's size instead, so a dependency that brings a large part back (zod's 47
// locales were 260 KiB: src/contracts/zod.ts) fails here, not at the next benchmark. Raise it on
// purpose, with the reason in the commit. Issue 37 raised it by what MCP costs, 240 KiB (642.52 ->
// 882.26 KiB: the official MCP SDK, @modelcontextprotocol/server and core, 224 KiB, and src/mcp;
// docs/mcp.md, Cost), from 700. Issue 37's OAuth part raised it by what OAuth costs, 142 KiB (911.24
// -> 1052.71 KiB: @cloudflare/workers-oauth-provider 120 KiB, src/oauth, the consent and
// connections pages and the tools' output schemas the rest), from 940. Issue 41 raised it by what
// the panel's guided start costs, 26 KiB (1071.43 -> 1097.73 KiB: its six steps' pages and views,
// the target suggestions, the lead search and names), from 1082. Issue 39 raised it by what the
// change journal and outbound webhooks cost, 44 KiB (1097.73 -> 1142.14 KiB: src/journal, the feed
// and history routes, src/outbound, the endpoints' and deliveries' routes and contracts, the
// OpenAPI `webhooks` object's schemas), from 1108. Issue 40 raised it by what batch writes, export
// and CSV import cost, 37 KiB (1142.14 -> 1178.89 KiB: src/imports, model/batch*, natural keys,
// core/csv and csv-read, the routes and contracts), from 1152. Issue 41's rest raised it by 4 KiB
// (1188.45 -> 1192.41 KiB: the add-row buttons and their script, leads stored at arrival, the
// guided saves' one-read write, the pt-BR wording), from 1189. Issue 39's panel part raised it by
// what the outbound endpoints' pages cost, 34 KiB (1192.41 -> 1226.28 KiB: their words in both
// languages, 13 KiB of them, the views' templates and the pages), from 1196. The panel's one-time
// form tokens raised it by 3 KiB (1227.85 -> 1231.12 KiB: the "already done" words in both
// languages, 2 KiB of them, src/panel/form-token.ts and its page), from 1230. Issue 40's panel
// part raised it by what the import page and export buttons cost, 17 KiB (1231.12 -> 1247.91 KiB:
// the page, its views and words in both languages, src/imports/service.ts, GET /v1/imports), from
// 1234. Issue 39's rest raised it by 1 KiB (1247.91 -> 1248.68 KiB: the key lookup's "an endpoint
// takes deliveries" (src/db/listening.ts), the drill's retry scale, an unshowable entry's
// envelope), from 1248. The import's reasons as codes raised it by what they cost, 1.48 KiB
// (1248.68 -> 1250.16 KiB: params on the batch's field errors, the dry run's `errors`, the
// `date_time` and `invalid_format` words), from 1250; the import page's reasons in both languages
// by 3.63 KiB more (1250.16 -> 1253.79 KiB: src/panel/import-reasons.ts), from 1251. Issue 41's
// guided second pass raised it by 6 KiB (1253.79 -> 1259.82 KiB: step 4's deal name, its field
// buttons and live example in panel.js, the match choices, the custom fields and action names in
// the preview's summary, the words in both languages, the wider boxes' rules), from 1254.
// The second newcomer's pass raised it by 0.1 KiB (1259.97 -> 1260.08 KiB: step 4's contact match as
// radios, a task's "Nome" column), from 1260. Issue 38's third session raised it by 1 KiB, to keep
// room after its 0.35 KiB (1261.65 -> 1262.00 KiB: a read's key lookup without the endpoints'
// question, a grant's own account subquery; docs/performance.md, Round 9), from 1262.
// Issue 36's shards raised it by the measured 10.8 KiB (1262.00 -> 1272.77 KiB: src/db/shards.ts,
// the directory, the admin API's account, list and shard routes with their OpenAPI, the shard in
// each credential and queue message, the migrations check with drizzle/meta/_journal.json), from 1263.
// Issue 36's moves raised it by the measured 29.1 KiB (1272.77 -> 1301.88 KiB: src/moves, the
// moving tables and their trigger list, the admin move routes with their OpenAPI, the two problem
// codes' words, held webhook calls, credential forwarding, the moved entries' fan-out), from 1274.
// The queue messages' zod contracts (events, deliveries, fan-out asks, import chunks), the
// journal's `created` for new rows, a move's wait for imports, and the forward asked by the panel's
// sign-in and OAuth's token exchange: +1.24 KiB (1301.88 -> 1303.12 KiB), so 1304.
// An import started during a move's copy resumed on the new shard (its next chunk queued by the
// drain, an old shard's late chunk acked): +0.62 KiB (1303.42 -> 1304.04 KiB), so 1305; then
// held calls counted in the quota, +0.11 KiB, and the cron's sweep of import files no import took
// up, +0.72 KiB, within it (1304.87 KiB). The panel's delete button worded for the whole log when
// no filter is set, and a preview's custom-field dates as people write them (15/03/2025): +0.86 KiB
// (1304.84 -> 1305.70 KiB), so 1306. The guided start's summary after going live (the sender's URL,
// where to watch and change the webhook, what became of the test leads): +0.94 KiB (1305.70 ->
// 1306.64 KiB). The review after it took 0.96 KiB back (one copy of each resource's names, of an
// import's next-chunk message, of a calendar date's words, of the JSON-object check): 1305.68 KiB,
// so 1306.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { wranglerBin, wranglerEnv } from './wrangler.mjs';

const BUDGET_KIB = 1306;

const outdir = mkdtempSync(join(tmpdir(), 'crm-bundle-'));
try {
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    [wranglerBin, 'deploy', '--dry-run', '--minify', '--outdir', outdir],
    { encoding: 'utf8', env: wranglerEnv },
  );
  if (status !== 0) {
    console.error(`${stdout}${stderr}\ncheck:bundle: wrangler deploy --dry-run failed`);
    process.exit(status || 1);
  }
  const bundle = readFileSync(join(outdir, 'index.js'));
  const kib = (/** @type {number} */ bytes) => (bytes / 1024).toFixed(2);
  const line = `${kib(bundle.length)} KiB minified, ${kib(gzipSync(bundle).length)} KiB gzip (budget ${BUDGET_KIB} KiB)`;
  if (bundle.length > BUDGET_KIB * 1024) {
    console.error(`check:bundle: ${line}: over budget`);
    process.exit(1);
  }
  console.log(`bundle ${line}`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
