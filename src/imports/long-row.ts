/**
 * A row longer than a chunk's window (a line of megabytes without a line break, a quote that opens
 * and runs on): where it ends, so that it fails alone and the rows after it are read. The file is
 * scanned window by window from R2 (memory stays one window), reading quotes, the delimiter and
 * line ends as core/csv-read.ts does: a quote opens a quoted cell only at a cell's start, `""`
 * inside one is a quote, and CR, LF or CRLF outside quotes ends the row.
 */
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

type State = 'cellStart' | 'bare' | 'quoted' | 'quoteInQuoted';
type Scan = { state: State; lines: number };

/** The index just past the row's end in `bytes`, or undefined when it goes on past them. */
function endIn(bytes: Uint8Array, delimiter: number, scan: Scan): number | undefined {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === LF) scan.lines++;
    if (scan.state === 'quoted') {
      if (b === QUOTE) scan.state = 'quoteInQuoted';
      continue;
    }
    if (b === LF) return i + 1;
    if (b === CR) {
      if (bytes[i + 1] !== LF) return i + 1;
      scan.lines++;
      return i + 2;
    }
    if (b === delimiter) scan.state = 'cellStart';
    else if (b === QUOTE && scan.state !== 'bare') scan.state = 'quoted';
    else scan.state = 'bare';
  }
  return undefined;
}

/**
 * Where the row at `offset` ends (`next`: the byte after its line end, or the file's end), the
 * line feeds it holds, and whether a quoted cell was left open at the file's end.
 */
export async function skipLongRow(
  bucket: R2Bucket,
  at: { fileKey: string; offset: number; size: number; delimiter: string; window: number },
): Promise<{ next: number; lines: number; unclosed: boolean }> {
  const scan: Scan = { state: 'cellStart', lines: 0 };
  for (let from = at.offset; from < at.size; from += at.window) {
    const object = await bucket.get(at.fileKey, { range: { offset: from, length: at.window } });
    if (!object) break;
    const bytes = new Uint8Array(await object.arrayBuffer());
    const end = endIn(bytes, at.delimiter.charCodeAt(0), scan);
    if (end !== undefined) return { next: from + end, lines: scan.lines, unclosed: false };
  }
  return { next: at.size, lines: scan.lines, unclosed: scan.state === 'quoted' };
}
