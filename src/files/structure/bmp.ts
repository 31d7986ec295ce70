import { type ContentCheck, END, ascii, fail, read, skip, uint32le, walk } from './reader.ts';

/** The 14-byte file header plus the smallest (OS/2 1.x) info header. */
const SMALLEST_BMP = 14 + 12;

/** `BM` and a little-endian file size that must be the file's exact length. */
export const bmpCheck = (): ContentCheck =>
  walk(
    'BMP',
    read(6, (header) => {
      if (ascii(header, 0, 2) !== 'BM') return fail('the header is wrong');
      const size = uint32le(header, 2);
      if (size < SMALLEST_BMP) return fail('the size field is too small');
      return skip(size - 6, () => END);
    }),
  );
