import { headAndTail } from './head-and-tail.ts';
import type { ContentCheck } from './reader.ts';

const SOI = Uint8Array.of(0xff, 0xd8);

/**
 * Starts with SOI and ends with EOI, nothing after it. The segments in between are not walked, so this
 * catches data appended to a JPEG, not data hidden inside one (say, in a comment segment).
 */
export const jpegCheck = (): ContentCheck =>
  headAndTail('JPEG', SOI, 2, (tail) =>
    tail.length === 2 && tail[0] === 0xff && tail[1] === 0xd9 ? undefined : 'it does not end with EOI',
  );
