import { headAndTail } from './head-and-tail.ts';
import type { ContentCheck } from './reader.ts';

const HEADER = new TextEncoder().encode('%PDF-');
const EOF_MARKER = new TextEncoder().encode('%%EOF');
/** Readers look for the end-of-file marker in the last kilobyte (ISO 32000-1, 7.5.5). */
const TAIL = 1024;
/** PDF's white-space characters (ISO 32000-1, table 1): NUL, tab, LF, FF, CR and space. */
const WHITE_SPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);

function lastIndexOf(bytes: Uint8Array, needle: Uint8Array): number {
  for (let at = bytes.length - needle.length; at >= 0; at--) {
    if (needle.every((byte, i) => bytes[at + i] === byte)) return at;
  }
  return -1;
}

/** `%PDF-` first; the last `%%EOF` within the last kilobyte, followed by white space only. */
export const pdfCheck = (): ContentCheck =>
  headAndTail('PDF', HEADER, TAIL, (tail) => {
    const marker = lastIndexOf(tail, EOF_MARKER);
    if (marker < 0) return 'there is no %%EOF near its end';
    const after = tail.subarray(marker + EOF_MARKER.length);
    return after.every((byte) => WHITE_SPACE.has(byte)) ? undefined : 'data follows its %%EOF';
  });
