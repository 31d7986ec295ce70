import { readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { localStorage } from '../../src/integrations/storage/local.ts';
import type { ObjectStorage } from '../../src/integrations/storage/port.ts';
import { s3Storage } from '../../src/integrations/storage/s3.ts';
import { startTestS3 } from './s3.ts';

export interface TestStorage {
  readonly storage: ObjectStorage;
  /** Every key stored right now (temporary files of writes in progress are not keys). */
  keys(): Promise<string[]>;
  cleanup(): Promise<void>;
}

/** A local storage in a fresh temporary directory. */
export async function localTestStorage(): Promise<TestStorage> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-uploads-'));
  const storage = localStorage(dir);
  return {
    storage,
    keys: async () => {
      const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile() && e.name.endsWith('.object'))
        .map((e) => relative(dir, join(e.parentPath, e.name)).replace(/\.object$/, ''));
    },
    cleanup: async () => {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** S3 storage on a fresh bucket of the test S3 server (S3_ENDPOINT, else s3rver on loopback). */
export async function s3TestStorage(): Promise<TestStorage> {
  const s3 = await startTestS3();
  const options = {
    bucket: s3.bucket,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    ...(s3.credentials ? { credentials: s3.credentials } : {}),
  };
  const storage = s3Storage(options);
  const client = new S3Client({ ...options, ...(s3.credentials ? { credentials: s3.credentials } : {}) });
  return {
    storage,
    keys: async () => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      return (listed.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key]));
    },
    cleanup: async () => {
      client.destroy();
      await storage.close();
      await s3.stop();
    },
  };
}

/** Both adapters, for suites that must pass on each (`describe.each`). */
export function testStorages(): [string, () => Promise<TestStorage>][] {
  return [
    ['local', localTestStorage],
    ['S3', s3TestStorage],
  ];
}

/** The storage, recording every key a write was begun for, kept or not. */
export function recordingWrites(storage: ObjectStorage, writes: string[]): ObjectStorage {
  return {
    ...storage,
    put: (key, body, options) => {
      writes.push(key);
      return storage.put(key, body, options);
    },
  };
}

export interface RecordedStorage {
  /** Give this to the app: the suite's storage, recording each write begun. */
  readonly storage: ObjectStorage;
  /** Every key a write was begun for, in order. */
  readonly writes: readonly string[];
  /** Every key stored right now. */
  keys(): Promise<string[]>;
}

/**
 * A local storage of the suite's own, created before the app (call this before `useRunningApp`) and
 * removed after, so a test can see which writes were begun and which objects were kept.
 */
export function useRecordedStorage(): RecordedStorage {
  let storage: TestStorage | undefined;
  const writes: string[] = [];
  beforeAll(async () => {
    storage = await localTestStorage();
  });
  afterAll(async () => {
    await storage?.cleanup();
  });
  const current = (): TestStorage => {
    if (!storage) throw new Error('the storage is only there inside hooks and tests');
    return storage;
  };
  return {
    get storage() {
      return recordingWrites(current().storage, writes);
    },
    writes,
    keys: () => current().keys(),
  };
}
