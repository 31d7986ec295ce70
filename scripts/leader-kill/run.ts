/**
 * The leader-kill check's run: writers append continuously through the service's own KurrentDB adapter,
 * one writer per stream, each event with a fresh id, while the operator (or `kill.command`) kills or
 * restarts the leader; then everything is read back, by stream and through `$all`, and verified
 * (verify.ts). What it measures is what the service would see: the adapter's retries included.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { EventToAppend, Position, RecordedEvent } from '../../src/events/envelope.ts';
import {
  createKurrentDbEventStore,
  type KurrentDbEventStoreOptions,
} from '../../src/events/store/kurrentdb.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import {
  type AcknowledgedAppend,
  type FailedAppend,
  type Finding,
  type StoredEvent,
  verifyRun,
} from './verify.ts';

export interface LeaderKillOptions {
  readonly connectionString: string;
  readonly durationMs: number;
  readonly streams: number;
  /** Events per append: 1 up to this, in turn. */
  readonly batchMax: number;
  /** `revision`: each append expects the stream's revision, as the service's aggregates do. */
  readonly expected: 'revision' | 'any';
  /** A shell command run once, `atMs` after the start (e.g. `docker restart kurrentdb-node1`). */
  readonly kill?: { readonly command: string; readonly atMs: number };
  /** The category of the run's streams; a fresh one by default, so runs never mix. */
  readonly category?: string;
  /** How long reading back may keep failing after the run (a cluster still electing). */
  readonly readBackTimeoutMs?: number;
  readonly logger: Logger;
  /** The adapter's retry policy; the service's own by default. */
  readonly appendRetry?: KurrentDbEventStoreOptions['appendRetry'];
  /** Progress lines (to stderr by the CLI). */
  readonly progress?: (line: string) => void;
}

export interface LeaderKillReport {
  readonly category: string;
  readonly attempted: number;
  readonly acknowledged: number;
  /** Acknowledged appends the adapter answered as already written (a lost answer, found again). */
  readonly answeredAsWritten: number;
  readonly failed: number;
  /** Failed appends by error name. */
  readonly failures: Readonly<Record<string, number>>;
  readonly eventsAcknowledged: number;
  readonly eventsStored: number;
  /** The longest wait for one append's answer, retries included: how long writes stalled. */
  readonly longestAppendMs: number;
  readonly kill: { readonly command: string; readonly exitCode: number | string } | null;
  readonly findings: readonly Finding[];
  readonly ok: boolean;
}

/** The client's errors keep the name `Error`; their classes tell them apart. */
const errorName = (error: unknown): string =>
  error instanceof Error
    ? error.constructor.name !== 'Error'
      ? error.constructor.name
      : error.name
    : typeof error;

function checkEvent(category: string, stream: string, seq: number): EventToAppend {
  const id = randomUUID();
  return {
    id,
    type: 'leaderKillCheck',
    data: { run: category, stream, seq },
    metadata: {
      actor: { type: 'system', id: 'leader-kill-check' },
      correlationId: id,
      causationId: null,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  };
}

/** Runs `read` until it answers or `timeoutMs` has passed: reads are not retried by the adapter. */
async function patiently<T>(read: () => Promise<T>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (Date.now() > until) throw error;
      await sleep(500);
    }
  }
}

function runKill(command: string, progress: (line: string) => void): Promise<number | string> {
  progress(`running --kill: ${command}`);
  return new Promise((done) => {
    // Its output goes to stderr, beside the progress; stdout keeps the report.
    const child = spawn(command, { shell: true, stdio: ['ignore', 2, 2] });
    child.on('error', () => {
      done('not started');
    });
    child.on('exit', (code, signal) => {
      progress(`--kill exited with ${String(code ?? signal)}`);
      done(code ?? signal ?? -1);
    });
  });
}

async function readBack(store: EventStore, category: string, streams: readonly string[], timeoutMs: number) {
  const byStream = new Map<string, StoredEvent[]>();
  for (const stream of streams) {
    const events = await patiently(() => store.readStream(stream), timeoutMs);
    byStream.set(
      stream,
      events.map((e) => ({ id: e.id, revision: e.streamRevision })),
    );
  }
  const inAll = new Map<string, number>();
  let after: Position | null = null;
  for (;;) {
    const from: Position | null = after;
    const page: RecordedEvent[] = await patiently(
      () => store.readAll({ after: from, categories: [category], maxCount: 1000 }),
      timeoutMs,
    );
    for (const event of page) inAll.set(event.id, (inAll.get(event.id) ?? 0) + 1);
    const last = page.at(-1);
    if (!last) break;
    after = last.position;
  }
  return { streams: byStream, inAll };
}

export async function runLeaderKillCheck(options: LeaderKillOptions): Promise<LeaderKillReport> {
  const progress = options.progress ?? (() => undefined);
  const category = options.category ?? `leaderKill${randomBytes(4).toString('hex')}`;
  const streams = Array.from({ length: options.streams }, (_, i) => `${category}-${i.toString()}`);
  const store = createKurrentDbEventStore({
    connectionString: options.connectionString,
    logger: options.logger,
    ...(options.appendRetry ? { appendRetry: options.appendRetry } : {}),
  });
  const acknowledged: AcknowledgedAppend[] = [];
  const failed: FailedAppend[] = [];
  const failures: Record<string, number> = {};
  let attempted = 0;
  let answeredAsWritten = 0;
  let longestAppendMs = 0;
  const started = Date.now();
  const deadline = started + options.durationMs;
  const readBackTimeoutMs = options.readBackTimeoutMs ?? 60_000;

  const writer = async (stream: string) => {
    let revision: bigint | 'no_stream' = 'no_stream';
    for (let seq = 0; Date.now() < deadline;) {
      const events = Array.from({ length: 1 + (attempted % options.batchMax) }, () =>
        checkEvent(category, stream, seq++),
      );
      const ids = events.map((e) => e.id);
      attempted++;
      const sent = Date.now();
      try {
        const result = await store.append(stream, events, options.expected === 'any' ? 'any' : revision);
        acknowledged.push({ stream, ids, nextRevision: result.nextRevision });
        if (!result.written) answeredAsWritten++;
        revision = result.nextRevision;
      } catch (error) {
        failed.push({ stream, ids });
        failures[errorName(error)] = (failures[errorName(error)] ?? 0) + 1;
        // Whether it landed is unknown: carry on from what the stream holds now.
        const [last] = await patiently(
          () => store.readStream(stream, { direction: 'backwards', maxCount: 1 }),
          readBackTimeoutMs,
        );
        revision = last ? last.streamRevision : 'no_stream';
      } finally {
        longestAppendMs = Math.max(longestAppendMs, Date.now() - sent);
      }
    }
  };

  const ticker = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    progress(
      `${seconds.toString()} s: ${attempted.toString()} appends, ${acknowledged.length.toString()} acknowledged, ` +
        `${failed.length.toString()} failed`,
    );
  }, 5_000);
  const { kill } = options;
  const killed = kill ? sleep(kill.atMs).then(() => runKill(kill.command, progress)) : Promise.resolve(null);
  try {
    await Promise.all(streams.map(writer));
    const exitCode = await killed;
    progress('reading everything back');
    const read = await readBack(store, category, streams, readBackTimeoutMs);
    const findings = verifyRun(acknowledged, failed, read);
    return {
      category,
      attempted,
      acknowledged: acknowledged.length,
      answeredAsWritten,
      failed: failed.length,
      failures,
      eventsAcknowledged: acknowledged.reduce((n, a) => n + a.ids.length, 0),
      eventsStored: [...read.streams.values()].reduce((n, s) => n + s.length, 0),
      longestAppendMs,
      kill: kill && exitCode !== null ? { command: kill.command, exitCode } : null,
      findings,
      ok: findings.length === 0 && acknowledged.length > 0,
    };
  } finally {
    clearInterval(ticker);
    await store.close();
  }
}
