import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { type ContentCheck, structureChecks } from './structure/index.ts';
import { textCheck } from './text-check.ts';
import {
  type DetectedType,
  FILE_KINDS,
  type FileKind,
  TEXT_MIME,
  UploadRejected,
  allowedType,
  notAllowed,
  tooLarge,
} from './types.ts';

/** How many leading bytes the type detection looks at (file-type's own "reasonable" sample size). */
export const SNIFF_BYTES = 4100;

export interface UploadCaps {
  readonly file: number;
  readonly image: number;
  readonly video: number;
}

export interface InspectOptions {
  /** The kinds this upload may be (say, only images for a comment picture); all by default. */
  readonly kinds?: readonly FileKind[];
}

export type InspectedUpload = DetectedType & { readonly size: number };

export interface UploadInspection {
  /** Pipe the upload through this (with `pipeline`, so that a source error reaches it). */
  readonly stream: Transform;
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
 * chunk, and its size against the cap of its kind. Bytes come out as they went in; only the first
 * SNIFF_BYTES wait for the detection. A refusal destroys the stream at once with an UploadRejected
 * (413 as soon as the cap is passed, 415 as soon as the content is known to be wrong), so the caller's
 * pipeline stops reading and aborts the write.
 */
export function inspectUpload(caps: UploadCaps, options: InspectOptions = {}): UploadInspection {
  const kinds = options.kinds ?? FILE_KINDS;
  // Until the type is known, the largest cap among the kinds allowed here is the only bound.
  const sniffCap = Math.max(...kinds.map((kind) => capFor(caps, kind)));
  const verdict = Promise.withResolvers<InspectedUpload>();
  // A caller that only pipes (and learns of a refusal from the pipeline) must not get an unhandled
  // rejection; awaiting `result` still sees it.
  verdict.promise.catch(() => undefined);

  let size = 0;
  let held: Buffer[] = [];
  let known: Known | undefined;

  /** Checks `chunk` (the size already counts it); the refusal, or undefined when it may pass. */
  function admit({ type, cap, check }: Known, chunk: Uint8Array): UploadRejected | undefined {
    if (size > cap)
      return tooLarge(`The upload is larger than the ${cap}-byte limit for ${type.kind} files.`);
    const failure = check.push(chunk);
    return failure === undefined ? undefined : notAllowed(`The file is ${failure}.`);
  }

  /** Detects the type from what is held, then lets the held bytes through. */
  async function release(stream: Transform): Promise<Known> {
    const sniffed = Buffer.concat(held);
    held = [];
    if (sniffed.length === 0) throw notAllowed('The file is empty.');
    const type = await detect(sniffed.subarray(0, SNIFF_BYTES), kinds);
    const check = type.mime === TEXT_MIME ? textCheck() : structureChecks[type.mime]();
    const decided = { type, cap: capFor(caps, type.kind), check };
    const refusal = admit(decided, sniffed);
    if (refusal) throw refusal;
    known = decided;
    stream.push(sniffed);
    return decided;
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
      if (known !== undefined) {
        const refusal = admit(known, chunk);
        done(refusal, refusal ? undefined : chunk);
        return;
      }
      if (size > sniffCap) {
        done(tooLarge(`The upload is larger than the largest allowed size (${sniffCap} bytes).`));
        return;
      }
      held.push(chunk);
      if (size < SNIFF_BYTES) done();
      else settle(release(this), done);
    },
    flush(this: Transform, done) {
      const finish = async () => {
        const { type, check } = known ?? (await release(this));
        const failure = check.end();
        if (failure !== undefined) throw notAllowed(`The file is ${failure}.`);
        verdict.resolve({ ...type, size });
      };
      settle(finish(), done);
    },
    destroy(error, done) {
      // After a resolved verdict this is a no-op; otherwise the upload did not end well.
      verdict.reject(error ?? new Error('The upload stream was closed before it ended.'));
      done(error);
    },
  });
  return { stream, result: verdict.promise };
}
