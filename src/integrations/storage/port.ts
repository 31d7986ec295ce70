import type { Readable } from 'node:stream';

/** Inclusive byte range, as HTTP Range requests count. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface ObjectInfo {
  /** The whole object's size in bytes. */
  readonly size: number;
  readonly contentType: string;
}

export interface ObjectBody extends ObjectInfo {
  /** The bytes asked for: the whole object, or exactly the range. */
  readonly body: Readable;
  /** The range served, when one was asked for. */
  readonly range: ByteRange | null;
}

export interface PutOptions {
  readonly contentType: string;
  /** Aborting stops the write and leaves nothing behind under the key. */
  readonly signal?: AbortSignal;
}

/**
 * Where file bytes live (spec rule 4): object storage (S3 or any S3-compatible server), or a local
 * directory when none is configured. Keys are opaque strings made by the caller (random, never from a
 * file name); adapters must refuse keys that could escape their namespace.
 */
export interface ObjectStorage {
  readonly kind: 's3' | 'local';
  /**
   * Streams `body` to `key`. The object appears whole or not at all: when the body errors or the signal
   * aborts, nothing is left under the key and the promise rejects with that error.
   */
  put(key: string, body: Readable, options: PutOptions): Promise<{ readonly size: number }>;
  /** null when there is no such object. A range past the end is the caller's to refuse (use head). */
  get(key: string, range?: ByteRange): Promise<ObjectBody | null>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Removes the object; nothing happens when there is none. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
