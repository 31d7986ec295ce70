/**
 * A small streaming reader for checking a file's structure while it passes by: a walker describes the
 * format as steps ("give me the next k header bytes", "skip n bytes", "the file must end here") and the
 * reader feeds it chunk by chunk, whatever their sizes. Only the bytes of the header being read are
 * kept, so a walk costs a few bytes of memory however large the file is.
 */

/** Checks bytes as they stream. Each call returns why the content is refused, or undefined while it is fine. */
export interface ContentCheck {
  push(chunk: Uint8Array): string | undefined;
  /** The input ended: undefined when it was exactly one well-formed item. */
  end(): string | undefined;
}

export type Step =
  | {
      readonly kind: 'read';
      readonly length: number;
      /** End of input before this read's first byte is a proper end (a boundary between items). */
      readonly endOk: boolean;
      readonly then: (bytes: Uint8Array) => Step;
    }
  | { readonly kind: 'skip'; readonly length: number; readonly then: () => Step }
  /** The item is complete: any further byte is trailing data. */
  | { readonly kind: 'end' }
  /** The item runs to the end of input, whatever follows. */
  | { readonly kind: 'rest' }
  | { readonly kind: 'fail'; readonly reason: string };

export const read = (length: number, then: (bytes: Uint8Array) => Step): Step => ({
  kind: 'read',
  length,
  endOk: false,
  then,
});
export const readOrEnd = (length: number, then: (bytes: Uint8Array) => Step): Step => ({
  kind: 'read',
  length,
  endOk: true,
  then,
});
export const skip = (length: number, then: () => Step): Step => ({ kind: 'skip', length, then });
export const END: Step = { kind: 'end' };
export const REST: Step = { kind: 'rest' };
export const fail = (reason: string): Step => ({ kind: 'fail', reason });

export const malformed = (name: string, reason: string): string => `not a well-formed ${name}: ${reason}`;

/** Runs a walker from its first step. `name` is the format, for the refusal's wording. */
export function walk(name: string, start: Step): ContentCheck {
  let step = start;
  let header = new Uint8Array(0);
  let filled = 0;
  let skipped = 0;

  function enter(next: Step): void {
    const counted = next.kind === 'read' || next.kind === 'skip';
    // A walker's arithmetic on hostile numbers must not make the reader loop or allocate wildly.
    step =
      counted && !(Number.isSafeInteger(next.length) && next.length >= 0)
        ? fail('a length is out of range')
        : next;
    filled = 0;
    skipped = 0;
    if (step.kind === 'read') header = new Uint8Array(step.length);
  }
  enter(start);

  /** Consumes from `chunk` at `offset`; returns the new offset. */
  function advance(chunk: Uint8Array, offset: number): number {
    switch (step.kind) {
      case 'read': {
        const taken = Math.min(step.length - filled, chunk.length - offset);
        header.set(chunk.subarray(offset, offset + taken), filled);
        filled += taken;
        if (filled === step.length) enter(step.then(header));
        return offset + taken;
      }
      case 'skip': {
        const taken = Math.min(step.length - skipped, chunk.length - offset);
        skipped += taken;
        if (skipped === step.length) enter(step.then());
        return offset + taken;
      }
      case 'end':
        enter(fail(`data follows the end of the ${name}`));
        return offset;
      case 'rest':
        return chunk.length;
      case 'fail':
        return chunk.length;
    }
  }

  /** Steps that take no bytes (a zero-length skip or read) must run even when no byte is left. */
  function settle(): void {
    while ((step.kind === 'skip' || step.kind === 'read') && step.length === 0) {
      enter(step.kind === 'skip' ? step.then() : step.then(header));
    }
  }

  const failure = (): string | undefined => (step.kind === 'fail' ? malformed(name, step.reason) : undefined);

  return {
    push(chunk) {
      let offset = 0;
      settle();
      while (offset < chunk.length && step.kind !== 'fail') {
        offset = advance(chunk, offset);
        settle();
      }
      return failure();
    },
    end() {
      settle();
      if (step.kind === 'read' && !(step.endOk && filled === 0)) enter(fail('it is truncated'));
      if (step.kind === 'skip') enter(fail('it is truncated'));
      return failure();
    },
  };
}

export const ascii = (bytes: Uint8Array, start: number, end: number): string =>
  String.fromCharCode(...bytes.subarray(start, end));

export const uint32be = (bytes: Uint8Array, at: number): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, false);

export const uint32le = (bytes: Uint8Array, at: number): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);

export const uint16le = (bytes: Uint8Array, at: number): number =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(at, true);
