import { describe, expect, it } from 'vitest';
import { panel } from './browser';

/**
 * The first bracket of panel.js left unclosed or closed by the wrong kind, skipping strings and
 * comments (the script has no regex literal holding a quote or bracket). A lost `}` at a merge
 * makes the browser refuse the whole script: copy, up/down, per-action options and the pending
 * refresh all stop at once, and the Workers runtime cannot parse JavaScript for us (no eval).
 */
function unbalanced(source: string): string | null {
  const open: { char: string; at: number }[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '"' || c === "'") {
      i += 1;
      while (i < source.length && source[i] !== c) i += source[i] === '\\' ? 2 : 1;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if ('([{'.includes(c)) open.push({ char: c, at: i });
    else if (c in pairs) {
      const last = open.pop();
      if (last?.char !== pairs[c]) return `${c} at ${i} closes ${last?.char ?? 'nothing'}`;
    }
  }
  const left = open.pop();
  return left
    ? `${left.char} at ${left.at} (${source.slice(left.at - 40, left.at + 1)}) is never closed`
    : null;
}

describe('panel.js', () => {
  it('closes every bracket it opens, so the browser runs it', async () => {
    const res = await panel('/panel/static/panel.js');
    expect(res.status).toBe(200);
    const source = await res.text();
    expect(source).toContain('showOptions');
    expect(unbalanced(source)).toBeNull();
  });
});
