import { describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';
import { databaseText } from '../support/database-text.ts';
import { appendEventsFromBefore, PERSONAL_EVENTS, PLAIN, SEALABLE } from '../support/events-from-before.ts';
import { spawnService } from '../support/process.ts';

const db = useTestDatabase();
const OLD_SECRET = TEST_SECRETS.DATA_KEY_SECRET;
const NEW_SECRET = 'the-rotated-data-key-secret-0123456789abcdef';

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = spawnService(process.execPath, ['src/cli.ts', ...args], {
    ...TEST_SECRETS,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
    ...env,
  });
  return { code: await run.exited, stdout: run.stdout(), output: run.output() };
}

describe('npm run cli -- events seal, data-keys rewrap', () => {
  it('seals the events from before once, then rewraps their keys under a rotated secret', async () => {
    await appendEventsFromBefore(db.url);

    const sealed = await cli(['events', 'seal']);
    expect(sealed.code).toBe(0);
    expect(sealed.stdout).toContain(
      `sealed ${SEALABLE} events; ${PERSONAL_EVENTS - SEALABLE} were sealed already\n`,
    );
    const text = await databaseText(db.pool);
    for (const value of [...PLAIN.ann, ...PLAIN.bob]) expect(text).not.toContain(value);

    const again = await cli(['events', 'seal']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`sealed 0 events; ${PERSONAL_EVENTS} were sealed already\n`);

    // The new secret alone cannot unwrap the keys yet: the command says what is missing.
    const withoutPrevious = await cli(['data-keys', 'rewrap'], { DATA_KEY_SECRET: NEW_SECRET });
    expect(withoutPrevious.code).toBe(1);
    expect(withoutPrevious.output).toMatch(/unknown master key: .* DATA_KEY_SECRET_PREVIOUS/);

    const rotated = { DATA_KEY_SECRET: NEW_SECRET, DATA_KEY_SECRET_PREVIOUS: OLD_SECRET };
    const rewrapped = await cli(['data-keys', 'rewrap'], rotated);
    expect(rewrapped.code).toBe(0);
    expect(rewrapped.stdout).toMatch(/^wrapped 2 data keys anew under DATA_KEY_SECRET/);
    const done = await cli(['data-keys', 'rewrap'], { DATA_KEY_SECRET: NEW_SECRET });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^wrapped 0 data keys anew/);
  });

  it('events seal refuses a KurrentDB event store before touching anything', async () => {
    const run = await cli(['events', 'seal'], {
      EVENT_STORE: 'kurrentdb',
      EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false',
    });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/events in KurrentDB cannot be rewritten/);
  });

  it('names the actions it knows', async () => {
    const events = await cli(['events', 'unseal']);
    expect(events.code).toBe(1);
    expect(events.output).toContain("unknown events command 'unseal'");
    const keys = await cli(['data-keys', 'rotate']);
    expect(keys.code).toBe(1);
    expect(keys.output).toContain("unknown data-keys command 'rotate'");
  });
});
