import { type ContentCheck, END, ascii, fail, read, skip, type Step, uint16le, walk } from './reader.ts';

/** Larger logical screens are refused: decoders allocate width × height before reading a pixel. */
export const GIF_MAX_DIMENSION = 16384;

const EXTENSION = 0x21;
const IMAGE = 0x2c;
const TRAILER = 0x3b;
const HAS_COLOR_TABLE = 0x80;

/** A color table's size from a packed-fields byte: 3 bytes per entry, 2^(n+1) entries. */
const colorTableBytes = (packed: number): number =>
  packed & HAS_COLOR_TABLE ? 3 * 2 ** ((packed & 0x07) + 1) : 0;

/** Data sub-blocks: a length byte, that many bytes, until a zero length. */
function subBlocks(then: () => Step): Step {
  return read(1, ([length = 0]) => (length === 0 ? then() : skip(length, () => subBlocks(then))));
}

function image(): Step {
  return read(9, (descriptor) =>
    skip(colorTableBytes(descriptor[8] ?? 0), () =>
      // The LZW minimum code size, then the image data.
      skip(1, () => subBlocks(block)),
    ),
  );
}

function block(): Step {
  return read(1, ([introducer]) => {
    if (introducer === EXTENSION) return skip(1, () => subBlocks(block)); // the label, then its data
    if (introducer === IMAGE) return image();
    if (introducer === TRAILER) return END;
    return fail('a block has an unknown introducer');
  });
}

/** Header, logical screen, then extensions and images up to the trailer; nothing after it. */
export const gifCheck = (): ContentCheck =>
  walk(
    'GIF',
    read(6, (header) => {
      const version = ascii(header, 0, 6);
      if (version !== 'GIF87a' && version !== 'GIF89a') return fail('the header is wrong');
      return read(7, (screen) => {
        if (uint16le(screen, 0) > GIF_MAX_DIMENSION || uint16le(screen, 2) > GIF_MAX_DIMENSION) {
          return fail(`the image is larger than ${GIF_MAX_DIMENSION} pixels on a side`);
        }
        return skip(colorTableBytes(screen[4] ?? 0), block);
      });
    }),
  );
