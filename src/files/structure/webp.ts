import { type ContentCheck, END, ascii, fail, read, readOrEnd, skip, uint32le, walk } from './reader.ts';

/**
 * `RIFF`, a little-endian size, `WEBP`: the size counts everything after its own field, so the file is
 * exactly size + 8 bytes. RIFF pads a chunk of odd size with one zero byte, which is the only byte
 * allowed after it.
 */
export const webpCheck = (): ContentCheck =>
  walk(
    'WEBP',
    read(12, (header) => {
      if (ascii(header, 0, 4) !== 'RIFF' || ascii(header, 8, 12) !== 'WEBP')
        return fail('the header is wrong');
      const size = uint32le(header, 4);
      if (size < 4) return fail('the RIFF size is too small');
      if (size % 2 === 0) return skip(size - 4, () => END);
      return skip(size - 4, () =>
        readOrEnd(1, ([pad]) => (pad === 0 ? END : fail('the pad byte is not zero'))),
      );
    }),
  );
