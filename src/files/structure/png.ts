import { type ContentCheck, END, ascii, fail, read, skip, type Step, uint32be, walk } from './reader.ts';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** PNG caps chunk lengths at 2^31 - 1 so that they never read as negative. */
const MAX_CHUNK_LENGTH = 0x7fffffff;

/** Chunk types are four ASCII letters; anything else means the walk lost its place. */
const isChunkType = (type: string): boolean => /^[A-Za-z]{4}$/.test(type);

function chunk(first: boolean): Step {
  return read(8, (header) => {
    const length = uint32be(header, 0);
    const type = ascii(header, 4, 8);
    if (!isChunkType(type)) return fail('a chunk type is not four letters');
    if (length > MAX_CHUNK_LENGTH) return fail('a chunk is longer than PNG allows');
    if (first && type !== 'IHDR') return fail('the first chunk is not IHDR');
    // The CRC is skipped unchecked: computing it would mean reading every data byte for no safety gain.
    return skip(length + 4, () => (type === 'IEND' ? END : chunk(false)));
  });
}

/** Signature, then chunks up to and including IEND; nothing after it. */
export const pngCheck = (): ContentCheck =>
  walk(
    'PNG',
    read(SIGNATURE.length, (bytes) =>
      SIGNATURE.every((byte, i) => bytes[i] === byte) ? chunk(true) : fail('the signature is wrong'),
    ),
  );
