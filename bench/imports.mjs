// The CSV import's figures (issue 40): generated files posted to POST /v1/imports and timed until
// the Queue consumer has written them, the Worker's resident memory sampled meanwhile, and the
// batch endpoint against single calls. `npm run bench:imports` (scripts/bench-imports.mjs) runs them.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { field } from './api.mjs';
import { FIRST_NAMES, SURNAMES } from './names.mjs';
import { cnpjFor, maskCnpj } from './seed.mjs';

/** @typedef {import('./api.mjs').Api} Api */

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const SEGMENTS = ['Varejo', 'Alimentação', 'Construção', 'Saúde', 'Logística', 'Educação'];

/** @param {number} i @param {readonly string[]} words */
const pick = (i, words) => /** @type {string} */ (words[i % words.length]);

/** A person's name from `i`, with the accents of real Brazilian names. @param {number} i */
const person = (i) => `${pick(i, FIRST_NAMES)} ${pick(Math.floor(i / 7), SURNAMES)} ${i}`;

/** The i-th mobile number, in one of the masks people type. @param {number} i */
function phone(i) {
  const digits = `9${String(i).padStart(8, '0')}`;
  const masks = [
    `(11) ${digits.slice(0, 5)}-${digits.slice(5)}`,
    `+55 11 ${digits.slice(0, 5)} ${digits.slice(5)}`,
    `11${digits}`,
  ];
  return pick(i, masks);
}

/**
 * A companies file as pt-BR Excel saves one: `;`, Portuguese labels, masked and bare CNPJs, quoted
 * names, an extra column. Companies `from` to `from + rows - 1` (their CNPJs: cnpjFor of each).
 * @param {number} from @param {number} rows
 */
export function companiesCsv(from, rows) {
  const lines = ['Razão social;CNPJ;Segmento;Cidade'];
  for (let n = from; n < from + rows; n++) {
    const cnpj = n % 2 ? maskCnpj(cnpjFor(n)) : cnpjFor(n);
    const name =
      n % 5 ? `${pick(n, SURNAMES)} & Filhos ${n} Ltda` : `"Comércio ""${pick(n, SURNAMES)}""; ${n}"`;
    lines.push(`${name};${cnpj};${pick(n, SEGMENTS)};São Paulo`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A contacts file linked to companies by CNPJ: contact i of the file belongs to company
 * `companyFrom + (i mod companies)`. `bad`: the index of a row with an invalid e-mail (it must fail
 * alone). `tag` keeps e-mails and phones apart between files.
 * @param {{ tag: number, rows: number, companyFrom: number, companies: number, bad?: number }} options
 */
export function contactsCsv({ tag, rows, companyFrom, companies, bad }) {
  const lines = ['Nome,E-mail,Telefone,CNPJ'];
  for (let i = 0; i < rows; i++) {
    const n = companyFrom + (i % companies);
    const cnpj = i % 2 ? maskCnpj(cnpjFor(n)) : cnpjFor(n);
    const email = i === bad ? 'não-é-um-email' : `c${tag}.${i}@bench.example`;
    lines.push(`${person(i)},${email},${phone(tag * 1_000_000 + i)},${cnpj}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The resident memory (kB) of the Worker's process: `VmRSS`, or `VmHWM` (its peak). @param {number} pid @param {'VmRSS' | 'VmHWM'} which */
function memoryKb(pid, which) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${which}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
}

/**
 * The workerd that runs the Worker (and the local D1, R2 and Queues) behind `wrangler dev --port
 * <port>`, and wrangler's inspector port. wrangler starts the workerd in its own process group,
 * beside a proxy workerd; the Worker's listens on a port of its own choosing (`entry=127.0.0.1:0`),
 * as bench/cpu-per-request.mjs tells them apart. Linux only.
 * @param {number} port
 */
export function workerProcess(port) {
  const procs = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return [{ pid: Number(pid), group: Number(fields[2]), name, command }];
      } catch {
        return []; // gone since the listing
      }
    });
  const after = (/** @type {string[]} */ command, /** @type {string} */ flag) =>
    command[command.indexOf(flag) + 1];
  const wrangler = procs.find(
    (p) => p.command.includes('dev') && after(p.command, '--port') === String(port),
  );
  const worker = procs.find(
    (p) =>
      p.group === wrangler?.group &&
      p.name.startsWith('workerd') &&
      p.command.join(' ').includes('entry=127.0.0.1:0'),
  );
  if (!wrangler || !worker) throw new Error(`no workerd found for wrangler dev on port ${port}`);
  return { pid: worker.pid, inspectorPort: Number(after(wrangler.command, '--inspector-port')) };
}

/**
 * The Worker's V8 heap in use, read through wrangler's inspector (DevTools protocol,
 * `Runtime.getHeapUsage`; workerd does not answer `HeapProfiler.collectGarbage`, so what is used
 * includes garbage not yet collected). One connection for the run (one client at a time).
 * @param {number} inspectorPort
 */
export async function inspector(inspectorPort) {
  // The inspector refuses a client without an Origin of this machine.
  const ws = new WebSocket(`ws://127.0.0.1:${inspectorPort}/ws`, {
    headers: { Origin: 'http://localhost' },
  });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`the inspector on port ${inspectorPort} refused the connection`));
  });
  let next = 1;
  /** @type {Map<number, (result: any) => void>} */
  const waiting = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  };
  /** @param {string} method @returns {Promise<any>} */
  const send = (method) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    usedMb: async () => (await send('Runtime.getHeapUsage')).usedSize / 2 ** 20,
    close: () => ws.close(),
  };
}

/**
 * Samples the process's RSS every 100 ms and the Worker's heap every 250 ms until stopped, after
 * resetting the process's peak (`VmHWM`, by writing 5 to /proc/<pid>/clear_refs). Answers MB: the
 * RSS before, the highest sample, the kernel's own peak since the reset (which no sampling gap
 * misses); the Worker's heap in use before, its highest sample, and at the end.
 * @param {number} pid @param {Awaited<ReturnType<typeof inspector>>} heap
 */
export async function watchMemory(pid, heap) {
  try {
    // Resets the peak resident set to the current one (Linux ≥ 4.0, the process's own user).
    // Harmless if refused: the sampled peak remains.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {}
  const before = memoryKb(pid, 'VmRSS');
  const heapBefore = await heap.usedMb();
  let sampled = before;
  let heapPeak = heapBefore;
  let gone = false;
  const sample = () => {
    try {
      sampled = Math.max(sampled, memoryKb(pid, 'VmRSS'));
    } catch {
      gone = true;
    }
  };
  const timer = setInterval(sample, 100);
  let sampling = true;
  const heapLoop = (async () => {
    while (sampling) {
      heapPeak = Math.max(heapPeak, await heap.usedMb());
      await sleep(250);
    }
  })();
  return async () => {
    clearInterval(timer);
    sampling = false;
    await heapLoop;
    sample();
    if (gone) {
      throw new Error(
        `the Worker's workerd (pid ${pid}) exited during the import: wrangler dev restarts it when a file of src/ changes, so leave them alone while this runs`,
      );
    }
    const mb = (/** @type {number} */ kb) => kb / 1024;
    return {
      before_mb: mb(before),
      peak_sampled_mb: mb(sampled),
      peak_hwm_mb: mb(memoryKb(pid, 'VmHWM')),
      heap_before_mb: heapBefore,
      heap_peak_mb: heapPeak,
      heap_end_mb: await heap.usedMb(),
    };
  };
}

/**
 * @typedef {object} ImportRun
 * @property {string} name
 * @property {number} rows rows in the file
 * @property {number} file_mb
 * @property {number} upload_s from the POST to its 202 (the file streamed into R2)
 * @property {number} total_s from the POST until GET /v1/imports/{id} says completed
 * @property {number} rows_per_s rows ÷ total_s
 * @property {Record<string, number>} counts the import's counts at its end
 * @property {Awaited<ReturnType<Awaited<ReturnType<typeof watchMemory>>>>} memory the workerd's RSS and the Worker's heap
 * @property {{ start: number[], end: number[] }} load_average
 */

/**
 * Posts `csv` as a text/csv body to POST /v1/imports?`query`, then reads the import every 500 ms
 * until it ends; the Worker's memory (`pid`) is watched from the POST to the end.
 * @param {{ origin: string, apiKey: string, api: Api, pid: number, heap: Awaited<ReturnType<typeof inspector>> }} worker
 * @param {string} name @param {string} query @param {string} csv
 * @returns {Promise<ImportRun>}
 */
export async function timedImport({ origin, apiKey, api, pid, heap }, name, query, csv) {
  const body = Buffer.from(csv, 'utf8');
  const start = loadavg();
  const stop = await watchMemory(pid, heap);
  const started = performance.now();
  const res = await fetch(`${origin}/v1/imports?${query}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'text/csv',
      'Content-Length': String(body.length),
    },
    body,
  });
  const answer = await res.json();
  const upload_s = (performance.now() - started) / 1000;
  const id = field(answer, 'data', 'id');
  if (res.status !== 202)
    throw new Error(`POST /v1/imports answered ${res.status}: ${JSON.stringify(answer)}`);
  /** @type {unknown} */
  let data;
  for (;;) {
    await sleep(500);
    const read = await api('GET', `/v1/imports/${id}`);
    data = field(read.body, 'data');
    const status = field(data, 'status');
    if (status === 'completed') break;
    if (status !== 'queued' && status !== 'running')
      throw new Error(`import ${name} ended ${JSON.stringify(data)}`);
  }
  const total_s = (performance.now() - started) / 1000;
  const memory = await stop();
  const lines = csv.split('\r\n').length - 2;
  return {
    name,
    rows: lines,
    file_mb: body.length / 1e6,
    upload_s,
    total_s,
    rows_per_s: lines / total_s,
    counts: /** @type {Record<string, number>} */ (field(data, 'counts')),
    memory,
    load_average: { start, end: loadavg() },
  };
}

/**
 * The batch endpoint against single calls, in turn (`rounds` times, so each sees the same machine):
 * 100 contacts by 100 single POSTs, then `batches` batches of 100 creates, one request at a time.
 * @param {Api} api @param {{ rounds: number, batches: number }} options
 */
export async function batchAgainstSingles(api, { rounds, batches }) {
  let serial = 0;
  const contact = () => {
    serial++;
    return { name: person(serial), email: `b${serial}@batch.example`, phone: phone(9_000_000 + serial) };
  };
  const result = [];
  for (let round = 0; round < rounds; round++) {
    const start = loadavg();
    let started = performance.now();
    for (let i = 0; i < 100; i++) {
      const res = await api('POST', '/v1/contacts', contact());
      if (res.status !== 201) throw new Error(`POST /v1/contacts answered ${res.status}`);
    }
    const single_s = (performance.now() - started) / 1000;
    started = performance.now();
    for (let b = 0; b < batches; b++) {
      const items = Array.from({ length: 100 }, () => ({ op: 'create', data: contact() }));
      const res = await api('POST', '/v1/contacts/batch', { items });
      if (res.status !== 200) throw new Error(`POST /v1/contacts/batch answered ${res.status}`);
    }
    const batch_s = (performance.now() - started) / 1000;
    const singles = 100 / single_s;
    const batched = (batches * 100) / batch_s;
    result.push({
      round,
      single_items_per_s: singles,
      batch_items_per_s: batched,
      ratio: batched / singles,
      load_average: { start, end: loadavg() },
    });
  }
  return result;
}
