import { describe, expect, it } from 'vitest';
import { readOrKeepLast, SCRAPE_READ_TIMEOUT_MS } from '../../src/lib/metrics.ts';
import { createLogger } from '../../src/http/logger.ts';
import { LogCapture } from '../support/app.ts';

describe('readOrKeepLast', () => {
  const capture = () => {
    const lines = new LogCapture();
    return { lines, logger: createLogger('warn', lines) };
  };

  it('runs the read', async () => {
    const { logger, lines } = capture();
    let read = false;
    await readOrKeepLast(logger, 'the table', () => {
      read = true;
      return Promise.resolve();
    });
    expect(read).toBe(true);
    expect(lines.lines).toEqual([]);
  });

  it('keeps the last values when the read fails, and says so', async () => {
    const { logger, lines } = capture();
    await readOrKeepLast(logger, 'the table', () => Promise.reject(new Error('gone')));
    expect(lines.lines.join('\n')).toContain('metrics: cannot read the table; keeping the last values');
  });

  it('answers without a read that is never answered once its time is up, not before, and says so', async () => {
    const { logger, lines } = capture();
    let timeUp = (): void => undefined;
    const over = new Promise<void>((done) => {
      timeUp = done;
    });
    let answered = false;
    const scrape = readOrKeepLast(
      logger,
      'the table',
      () => new Promise(() => undefined),
      () => over,
    ).then(() => {
      answered = true;
    });
    // Every callback that is due runs; the scrape still waits for its time.
    await new Promise((done) => setImmediate(done));
    expect(answered).toBe(false);
    timeUp();
    await scrape;
    expect(lines.lines.join('\n')).toContain(
      `metrics: no answer reading the table within ${SCRAPE_READ_TIMEOUT_MS} ms; keeping the last values`,
    );
  });
});
