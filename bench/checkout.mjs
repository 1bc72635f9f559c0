// Another build of the service to measure against (`npm run bench -- --against <ref>`): a temporary
// git worktree of the ref, sharing this checkout's node_modules (the same wrangler and workerd, so
// only the code differs), removed at the end of the run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** @param {string[]} args */
const git = (args) =>
  execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * A detached worktree of `ref` in a temporary directory.
 * @param {string} ref
 * @returns {{ dir: string, commit: string, subject: string, remove: () => void }}
 */
export function checkout(ref) {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  const subject = git(['log', '-1', '--format=%s', commit]);
  const dir = join(mkdtempSync(join(tmpdir(), 'crm-against-')), 'build');
  git(['worktree', 'add', '--detach', dir, commit]);
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  let removed = false;
  return {
    dir,
    commit,
    subject,
    remove: () => {
      if (removed) return;
      removed = true;
      git(['worktree', 'remove', '--force', dir]);
      rmSync(join(dir, '..'), { recursive: true, force: true });
    },
  };
}
