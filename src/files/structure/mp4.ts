import {
  type ContentCheck,
  REST,
  ascii,
  fail,
  read,
  readOrEnd,
  skip,
  type Step,
  uint32be,
  walk,
} from './reader.ts';

const HEADER = 8;
const LARGE_HEADER = 16;

/**
 * Top-level ISO-BMFF boxes, which must tile the file exactly: 32-bit size and type; size 1 means a
 * 64-bit size follows, size 0 that the box runs to the end. The first box must be `ftyp`.
 */
function box(first: boolean): Step {
  const header = first ? read : readOrEnd;
  return header(HEADER, (bytes) => {
    const size = uint32be(bytes, 0);
    if (first && ascii(bytes, 4, 8) !== 'ftyp') return fail('the first box is not ftyp');
    if (size === 0) return REST;
    if (size === 1)
      return read(8, (large) => body(uint32be(large, 0) * 2 ** 32 + uint32be(large, 4), LARGE_HEADER));
    return body(size, HEADER);
  });
}

function body(size: number, headerLength: number): Step {
  if (size < headerLength) return fail('a box is smaller than its header');
  if (!Number.isSafeInteger(size)) return fail('a box is larger than any upload');
  return skip(size - headerLength, () => box(false));
}

export const mp4Check = (): ContentCheck => walk('MP4', box(true));
