import { type ContentCheck, REST, fail, malformed, read, walk } from './reader.ts';

/** The last `length` bytes of what came before and `chunk`. */
function lastBytes(kept: Uint8Array, chunk: Uint8Array, length: number): Uint8Array {
  if (chunk.length >= length) return chunk.slice(chunk.length - length);
  const joined = new Uint8Array(Math.min(length, kept.length + chunk.length));
  const fromKept = joined.length - chunk.length;
  joined.set(kept.subarray(kept.length - fromKept), 0);
  joined.set(chunk, fromKept);
  return joined;
}

/**
 * For formats whose middle is not worth walking: the file must start with `head`, and its last
 * `tailLength` bytes (fewer when the file is shorter) must satisfy `judgeTail`. Only those are kept.
 */
export function headAndTail(
  name: string,
  head: Uint8Array,
  tailLength: number,
  judgeTail: (tail: Uint8Array) => string | undefined,
): ContentCheck {
  const start = walk(
    name,
    read(head.length, (bytes) =>
      bytes.every((byte, i) => byte === head[i]) ? REST : fail('the header is wrong'),
    ),
  );
  let tail: Uint8Array = new Uint8Array(0);
  return {
    push(chunk) {
      tail = lastBytes(tail, chunk, tailLength);
      return start.push(chunk);
    },
    end() {
      const headFailure = start.end();
      if (headFailure !== undefined) return headFailure;
      const reason = judgeTail(tail);
      return reason === undefined ? undefined : malformed(name, reason);
    },
  };
}
