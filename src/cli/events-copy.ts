import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { copyEventLog, verifyCopy, type LogDigest } from '../events/store/copy.ts';
import { createKurrentDbEventStore } from '../events/store/kurrentdb.ts';
import { withDataKeys } from './data-keys.ts';
import { eventsUsage } from './usage.ts';

const argsSchema = z.object({
  // Not a WHATWG URL: a cluster's connection string lists several hosts.
  to: z
    .string({ error: '--to <EVENTSTORE_URL> is needed: the KurrentDB to copy into' })
    .regex(/^(kurrentdb|esdb|kdb)(\+discover)?:\/\/\S+$/, {
      error: '--to must be a KurrentDB connection string (kurrentdb://host:2113?tls=false)',
    }),
  'batch-size': z.coerce.number().int().min(1).max(4_096).default(500),
});

function parse(args: string[]): z.infer<typeof argsSchema> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, 'batch-size': { type: 'string' } },
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => issue.message).join('; ');
    throw new Error(`${why}; usage:\n${eventsUsage}`);
  }
  return parsed.data;
}

const bar = (format: string) =>
  // On a terminal a live bar; redirected (CI, logs) a line every few seconds.
  new SingleBar({ format, noTTYOutput: true, notTTYSchedule: 2_000 }, Presets.shades_classic);

const digestLine = (side: string, d: LogDigest) =>
  `${side}: ${d.count.toString()} events, sha256 ${d.sha256}\n`;

/**
 * `events copy --to <url>`: the PostgreSQL event log into KurrentDB, plain personal fields sealed on the
 * way, then both logs compared (decision 050). Exits 1 when stopped early or when the logs differ. The
 * connection string is never printed: it may hold a password.
 */
export async function runEventsCopy(config: Config, logger: Logger, args: string[]): Promise<void> {
  const options = parse(args);
  await withDataKeys(config, logger, async (url, keys) => {
    const target = createKurrentDbEventStore({ connectionString: options.to, logger });
    // Ctrl-C stops before the next append; a new run checks what is there and carries on.
    const stopping = new AbortController();
    const stop = () => {
      stopping.abort();
    };
    process.once('SIGINT', stop);
    try {
      const copying = bar('events copy |{bar}| {percentage}% | {value}/{total} events | {sealed} sealed');
      copying.start(0, 0, { sealed: 0 });
      let result;
      try {
        result = await copyEventLog({
          connectionString: url,
          target,
          keys,
          batchSize: options['batch-size'],
          signal: stopping.signal,
          onProgress: (p) => {
            copying.setTotal(p.total);
            copying.update(p.found + p.copied, { sealed: p.sealed + p.erased });
          },
        });
      } finally {
        copying.stop();
      }
      const erased = result.erased > 0 ? `, ${result.erased.toString()} of erased users as null` : '';
      process.stdout.write(
        `copied ${result.copied.toString()} events (${result.sealed.toString()} sealed on the way${erased}); ` +
          `${result.found.toString()} were there already\n`,
      );
      if (!result.complete) {
        process.stdout.write('stopped before the end: run `events copy` again to carry on\n');
        process.exitCode = 1;
        return;
      }
      const checking = bar('events copy: verifying |{bar}| {value} events');
      checking.start(0, 0);
      let compared;
      try {
        compared = await verifyCopy({
          connectionString: url,
          target,
          batchSize: options['batch-size'],
          onEvent: () => {
            checking.increment();
          },
        });
      } finally {
        checking.stop();
      }
      process.stdout.write(digestLine('source', compared.source) + digestLine('target', compared.target));
      if (compared.difference === null) {
        // Where the processors' checkpoints go at the switch (docs/operations.md).
        const head = await target.headPosition();
        const at = head ? `commit ${head.commit.toString()}, prepare ${head.prepare.toString()}` : 'empty';
        process.stdout.write(
          `the copy matches: set EVENT_STORE=kurrentdb and EVENTSTORE_URL\ntarget head: ${at}\n`,
        );
      } else {
        process.stdout.write(`the copy DIFFERS from the source at ${compared.difference}\n`);
        process.exitCode = 1;
      }
    } finally {
      process.off('SIGINT', stop);
      await target.close();
    }
  });
}
