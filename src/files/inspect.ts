import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import {
  HEAD_BYTES,
  type ImageDimensions,
  type ImageMime,
  isImageMime,
  readImageHead,
} from './image-dimensions.ts';
import { type ContentCheck, structureChecks } from './structure/index.ts';
import { textCheck } from './text-check.ts';
import {
  type DetectedType,
  FILE_KINDS,
  type FileKind,
  TEXT_MIME,
  UploadRejected,
  allowedType,
  imageTooLarge,
  notAllowed,
  tooLarge,
} from './types.ts';

/** How many leading bytes the type detection looks at (file-type's own "reasonable" sample size). */
export const SNIFF_BYTES = 4100;

/** Byte caps per kind, and the most pixels (width × height) an image may declare. */
export interface UploadCaps {
  readonly file: number;
  readonly image: number;
  readonly video: number;
  readonly imagePixels: number;
}

export interface InspectOptions {
  /** The kinds this upload may be (say, only images for a comment picture); all by default. */
  readonly kinds?: readonly FileKind[];
}

export type InspectedUpload = DetectedType & {
  readonly size: number;
  /** An image's width and height as its header declares them: what the pixel cap was checked on. */
  readonly dimensions?: ImageDimensions;
};

export interface UploadInspection {
  /** Pipe the upload through this (with `pipeline`, so that a source error reaches it). */
  readonly stream: Transform;
  /**
   * Resolves when the first bytes come out: the type is allowed and, for an image, its dimensions are
   * read and within the cap. Rejects with the refusal (or the stream's error) before that. A writer that
   * waits for it writes nothing for a file refused on its head.
   */
  readonly accepted: Promise<void>;
  /** The verdict: the type and size once every byte has passed every check, or the refusal. */
  readonly result: Promise<InspectedUpload>;
}

interface Known {
  readonly type: DetectedType;
  readonly cap: number;
  readonly check: ContentCheck;
}

const capFor = (caps: UploadCaps, kind: FileKind): number =>
  kind === 'image' ? caps.image : kind === 'video' ? caps.video : caps.file;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The allowed type of a file that starts with `sample`, or the refusal. */
async function detect(sample: Uint8Array, kinds: readonly FileKind[]): Promise<DetectedType> {
  const found = await fileTypeFromBuffer(sample).catch(() => {
    // A sample that trips a detector is no file we know how to check.
    throw notAllowed('The file type could not be determined.');
  });
  // No binary type found: it may only be text, which the text check then has to confirm.
  const mime = found?.mime ?? TEXT_MIME;
  const type = allowedType(mime);
  if (type === undefined) throw notAllowed(`Files of type ${mime} are not accepted.`);
  if (!kinds.includes(type.kind)) throw notAllowed(`Only ${kinds.join(', ')} files are accepted here.`);
  return type;
}

/**
 * Decides, while the bytes stream through, whether an upload is an allowed file: its type from its
 * leading bytes (never a name or a client's content type), then its structure or text checked chunk by
 * chunk, an image's declared width and height against the pixel cap, and its size against the cap of
 * its kind. Bytes come out as they went in; only the first SNIFF_BYTES wait for the detection, and an
 * image's first bytes (HEAD_BYTES at most) until its dimensions are read. A refusal destroys the stream
 * at once with an UploadRejected (413 as soon as a cap is passed, 415 as soon as the content is known to
 * be wrong), so the caller's pipeline stops reading and aborts the write.
 */
export function inspectUpload(caps: UploadCaps, options: InspectOptions = {}): UploadInspection {
  const kinds = options.kinds ?? FILE_KINDS;
  // Until the type is known, the largest cap among the kinds allowed here is the only bound.
  const sniffCap = Math.max(...kinds.map((kind) => capFor(caps, kind)));
  const verdict = Promise.withResolvers<InspectedUpload>();
  const accepted = Promise.withResolvers<undefined>();
  // A caller that only pipes (and learns of a refusal from the pipeline) must not get an unhandled
  // rejection; awaiting `result` or `accepted` still sees it.
  verdict.promise.catch(() => undefined);
  accepted.promise.catch(() => undefined);

  let size = 0;
  // What came in and has not come out yet: the head, while it is being judged.
  let held: Buffer[] = [];
  /** The type, once detected. */
  let decided: Known | undefined;
  /** Set once the head has passed: from then on every chunk goes straight through the checks. */
  let through: Known | undefined;
  let dimensions: ImageDimensions | undefined;
  // The held size at which an image's head is read again.
  let nextLook = 0;

  /** Checks `chunk` (the size already counts it); the refusal, or undefined when it may pass. */
  function admit({ type, cap, check }: Known, chunk: Uint8Array): UploadRejected | undefined {
    if (size > cap)
      return tooLarge(`The upload is larger than the ${cap}-byte limit for ${type.kind} files.`);
    const failure = check.push(chunk);
    return failure === undefined ? undefined : notAllowed(`The file is ${failure}.`);
  }

  /** What is held, as one buffer (kept held). */
  function heldBytes(): Buffer {
    const bytes = Buffer.concat(held);
    held = [bytes];
    return bytes;
  }

  /** The type of what is held. */
  async function detectHeld(): Promise<Known> {
    const sniffed = heldBytes();
    if (sniffed.length === 0) throw notAllowed('The file is empty.');
    const type = await detect(sniffed.subarray(0, SNIFF_BYTES), kinds);
    const check = type.mime === TEXT_MIME ? textCheck() : structureChecks[type.mime]();
    return { type, cap: capFor(caps, type.kind), check };
  }

  /**
   * The dimensions the held head of an image declares, once they are readable and within the cap;
   * undefined while more bytes may bring them. Throws the refusal: too many pixels (413), or no
   * readable dimensions within HEAD_BYTES or the file (415, as a malformed image; nothing unchecked is
   * stored).
   */
  function measure(mime: ImageMime, ended: boolean): ImageDimensions | undefined {
    const head = heldBytes();
    const reading = readImageHead(mime, head.subarray(0, HEAD_BYTES));
    if (reading.kind === 'more' && !ended && head.length < HEAD_BYTES) return undefined;
    if (reading.kind !== 'dimensions') {
      const reason =
        reading.kind === 'unreadable'
          ? reading.reason
          : ended
            ? 'the file ends before them'
            : `they are not within its first ${HEAD_BYTES} bytes`;
      throw notAllowed(`The image's width and height could not be read: ${reason}.`);
    }
    const { width, height } = reading.dimensions;
    if (width * height > caps.imagePixels) {
      throw imageTooLarge(
        `The image declares more pixels (width × height) than the ${caps.imagePixels} allowed.`,
      );
    }
    return reading.dimensions;
  }

  /**
   * Judges the held head as far as the bytes so far allow: detects the type and checks the held bytes,
   * reads an image's dimensions, and once all is well lets the held bytes through. Returns the type once
   * they are through, undefined while an image's head needs more bytes; with `ended`, one or the other
   * is decided.
   */
  async function judgeHead(stream: Transform, ended: boolean): Promise<Known | undefined> {
    if (decided === undefined) {
      const known = await detectHeld();
      // Structure before dimensions: a malformed file is refused as such, whatever size it claims.
      const refusal = admit(known, heldBytes());
      if (refusal) throw refusal;
      decided = known;
    }
    if (isImageMime(decided.type.mime)) {
      dimensions = measure(decided.type.mime, ended);
      if (dimensions === undefined) {
        // Read again once the head has doubled: a trickle of tiny chunks costs linear work, not quadratic.
        nextLook = Math.min(2 * size, HEAD_BYTES);
        return undefined;
      }
    }
    const head = heldBytes();
    held = [];
    through = decided;
    accepted.resolve(undefined);
    stream.push(head);
    return through;
  }

  function settle(work: Promise<unknown>, done: TransformCallback): void {
    work.then(
      () => {
        done();
      },
      (error: unknown) => {
        done(asError(error));
      },
    );
  }

  const stream = new Transform({
    transform(this: Transform, chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (through !== undefined) {
        const refusal = admit(through, chunk);
        done(refusal, refusal ? undefined : chunk);
        return;
      }
      if (decided === undefined && size > sniffCap) {
        done(tooLarge(`The upload is larger than the largest allowed size (${sniffCap} bytes).`));
        return;
      }
      // An image whose dimensions are still being looked for: checked now, held until they are read.
      const refusal = decided === undefined ? undefined : admit(decided, chunk);
      if (refusal) {
        done(refusal);
        return;
      }
      held.push(chunk);
      if (decided === undefined ? size < SNIFF_BYTES : size < nextLook) done();
      else settle(judgeHead(this, false), done);
    },
    flush(this: Transform, done) {
      const finish = async () => {
        const known = through ?? (await judgeHead(this, true));
        // With the input ended, judgeHead lets the head through or refuses it.
        if (known === undefined) throw new Error('The upload ended with its head undecided.');
        const failure = known.check.end();
        if (failure !== undefined) throw notAllowed(`The file is ${failure}.`);
        verdict.resolve({ ...known.type, size, ...(dimensions ? { dimensions } : {}) });
      };
      settle(finish(), done);
    },
    destroy(error, done) {
      // After a resolved verdict this is a no-op; otherwise the upload did not end well.
      const reason = error ?? new Error('The upload stream was closed before it ended.');
      accepted.reject(reason);
      verdict.reject(reason);
      done(error);
    },
  });
  return { stream, accepted: accepted.promise, result: verdict.promise };
}
