import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { localStorage } from '../../../src/integrations/storage/local.ts';
import { storageContract } from './contract.ts';

const scratch = () => mkdtemp(join(tmpdir(), 'svc-test-storage-'));

storageContract('local storage', async () => {
  const dir = await scratch();
  const root = join(dir, 'uploads');
  return {
    storage: localStorage(root),
    cleanup: () => rm(dir, { recursive: true, force: true }),
    leftovers: async () => readdir(join(root, '.tmp')),
  };
});

describe('local storage on disk', () => {
  it('keeps its directories and files to the service user', async () => {
    const dir = await scratch();
    try {
      const root = join(dir, 'uploads');
      await localStorage(root).put('chat/owner/file', Readable.from([Buffer.from('secret')]), {
        contentType: 'text/plain',
      });
      const mode = async (path: string) => (await stat(path)).mode & 0o777;
      expect(await mode(root)).toBe(0o700);
      expect(await mode(join(root, 'chat', 'owner'))).toBe(0o700);
      expect(await mode(join(root, 'chat', 'owner', 'file.object'))).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
