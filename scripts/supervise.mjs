// Runs a child in the foreground of a script: the signals that stop the script stop the child too.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** What a terminal, a process manager or an editor's stop button sends to end a dev server. */
const STOPS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);

/** How often the script checks that its parent is still there. */
const PARENT_CHECK_MS = 250;

/**
 * Runs `command` and resolves with its exit status once it has ended. A stop signal this script gets
 * is passed on and the script waits for the child: without that, a SIGTERM to `npm run dev` ended
 * the script alone and left wrangler and its workerd running, holding the port. The end of this
 * script's parent counts as a SIGTERM too: npm runs scripts under `sh -c`, and a shell such as dash
 * dies of the SIGTERM npm passes on without passing it further, leaving this script orphaned.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} options
 * @param {(child: import('node:child_process').ChildProcess) => void} [started] reads the child's pipes
 * @returns {Promise<number>} the child's exit code, or 128 + the number of the signal that ended it
 */
export function supervise(command, args, options, started) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    started?.(child);
    /** @param {NodeJS.Signals} signal */
    const pass = (signal) => {
      child.kill(signal);
    };
    const parent = process.ppid;
    const orphaned = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(orphaned);
      pass('SIGTERM');
    }, PARENT_CHECK_MS);
    const release = () => {
      clearInterval(orphaned);
      for (const signal of STOPS) process.off(signal, pass);
    };
    for (const signal of STOPS) process.on(signal, pass);
    child.once('error', (err) => {
      release();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      release();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
