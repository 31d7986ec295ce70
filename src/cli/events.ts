import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { sealStoredEvents } from '../events/store/seal-in-place.ts';
import { printable } from '../lib/printable.ts';
import { withDataKeys } from './data-keys.ts';
import { eventsUsage } from './usage.ts';

const BATCH = 500;

/**
 * `events seal`: the personal fields of events from before sealing, sealed in place (decision 048);
 * `events copy`: the log into KurrentDB (events-copy.ts).
 */
export async function runEventsCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  if (args[0] === 'copy') {
    const { runEventsCopy } = await import('./events-copy.ts');
    await runEventsCopy(config, logger, args.slice(1));
    return;
  }
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals[0] !== 'seal' || positionals.length > 1) {
    throw new Error(`unknown events command '${printable(positionals.join(' '))}'; usage:\n${eventsUsage}`);
  }
  if (config.EVENT_STORE === 'kurrentdb') {
    throw new Error(
      'events seal rewrites the PostgreSQL event store in place; events in KurrentDB cannot be rewritten, ' +
        'they are sealed as `events copy --to <url>` copies them there (docs/operations.md)',
    );
  }
  await withDataKeys(config, logger, async (url, keys) => {
    // Ctrl-C stops after the batch under way; what is sealed stays sealed, and a new run carries on.
    const stopping = new AbortController();
    const stop = () => {
      stopping.abort();
    };
    process.once('SIGINT', stop);
    // On a terminal a live bar; redirected (CI, logs) a line every few seconds.
    const bar = new SingleBar(
      {
        format:
          'events seal |{bar}| {percentage}% | {value}/{total} events | {sealed} sealed, {already} already',
        noTTYOutput: true,
        notTTYSchedule: 2_000,
      },
      Presets.shades_classic,
    );
    bar.start(0, 0, { sealed: 0, already: 0 });
    let result;
    try {
      result = await sealStoredEvents({
        connectionString: url,
        keys,
        batchSize: BATCH,
        signal: stopping.signal,
        onProgress: (p) => {
          bar.setTotal(Math.max(p.total, p.scanned));
          bar.update(p.scanned, { sealed: p.sealed + p.erased, already: p.alreadySealed });
        },
      });
    } finally {
      bar.stop();
      process.off('SIGINT', stop);
    }
    const erased = result.erased > 0 ? ` (${result.erased} of erased users, whose fields now hold null)` : '';
    process.stdout.write(
      `sealed ${result.sealed + result.erased} events${erased}; ${result.alreadySealed} were sealed already` +
        (result.complete ? '\n' : '; stopped before the end: run `events seal` again to carry on\n'),
    );
    if (!result.complete) process.exitCode = 1;
  });
}
