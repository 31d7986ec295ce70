import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Teardown } from './teardown.ts';

/**
 * Request and answer between the fleet's orchestrator and its child processes over Node's IPC channel:
 * the orchestrator calls `kind` with a payload, the child answers with a value or an error message.
 */
const request = z.object({ id: z.number(), kind: z.string(), payload: z.unknown() });
const answer = z.union([
  z.object({ id: z.number(), ok: z.literal(true), value: z.unknown() }),
  z.object({ id: z.number(), ok: z.literal(false), error: z.string() }),
]);
const ready = z.object({ ready: z.unknown() });

type Handler = (payload: unknown) => unknown;

/** How long a child's own stop may take; the orchestrator waits a little longer before it kills. */
const CHILD_STOP_DEADLINE_MS = 20_000;

const send = (message: unknown) => {
  process.send?.(message);
};

/**
 * The child's side: answers the orchestrator's calls with `handlers`, says it is ready with `value`,
 * and runs `stop` once when told to go (SIGTERM) or when the orchestrator is gone. Ctrl-C reaches every
 * process of the group: the child ignores it and lets the orchestrator stop it in order.
 */
export function serveOrchestrator(
  handlers: Readonly<Record<string, Handler>>,
  value: unknown,
  stop: () => Promise<unknown>,
): void {
  process.on('message', (raw) => {
    const parsed = request.safeParse(raw);
    if (!parsed.success) return;
    const { id, kind, payload } = parsed.data;
    const handler = handlers[kind];
    void (async () => {
      try {
        if (!handler) throw new Error(`no handler for '${kind}'`);
        send({ id, ok: true, value: (await handler(payload)) ?? null });
      } catch (error) {
        send({
          id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
    })();
  });
  let stopping = false;
  const leave = () => {
    if (stopping) return;
    stopping = true;
    // A stop that cannot finish (PostgreSQL already gone after Ctrl-C) must not keep the process alive.
    setTimeout(() => {
      process.stderr.write('fleet child: stop took too long; leaving anyway\n');
      process.exit(1);
    }, CHILD_STOP_DEADLINE_MS).unref();
    void stop()
      .catch((error: unknown) => {
        process.stderr.write(`fleet child: stop failed: ${String(error)}\n`);
        process.exitCode = 1;
      })
      .finally(() => {
        if (process.connected) process.disconnect();
        process.exit();
      });
  };
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', leave);
  process.on('disconnect', leave);
  send({ ready: value });
}

export interface Child {
  readonly name: string;
  readonly pid: number;
  /** What the child said when it became ready. */
  readonly ready: unknown;
  call(kind: string, payload?: unknown): Promise<unknown>;
  /** Why the child is gone, when it left before being stopped; null while it runs or after a stop. */
  died(): string | null;
  /** Stops it before the teardown would (the API processes between two counts of the multi-process mode). */
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 30_000;

/** `promise`, or a rejection as soon as `signal` aborts (Ctrl-C while a child starts or a phase runs). */
export async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      reject(new Error('interrupted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Asks the child to stop (SIGTERM), then kills it if it has not left in time. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timeout = sleep(STOP_TIMEOUT_MS).then(() => 'timeout' as const);
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Forks `entry` (a bench TypeScript file) with this Node, waits until it says it is ready, and stops it
 * at teardown. A child that dies fails every call in flight and every later one.
 */
export async function forkChild(
  name: string,
  entry: URL,
  env: Readonly<Record<string, string>>,
  teardown: Teardown,
  signal: AbortSignal,
): Promise<Child> {
  const child = fork(fileURLToPath(entry), [], {
    execPath: process.execPath,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let stopped = false;
  const stop = async () => {
    stopped = true;
    await stopChild(child);
  };
  teardown.add(`${name} process`, stop);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let death: string | null = null;
  let nextId = 1;
  const readyValue = new Promise<unknown>((resolve, reject) => {
    child.on('message', (raw) => {
      const isReady = ready.safeParse(raw);
      if (isReady.success) {
        resolve(isReady.data.ready);
        return;
      }
      const parsed = answer.safeParse(raw);
      if (!parsed.success) return;
      const waiting = pending.get(parsed.data.id);
      pending.delete(parsed.data.id);
      if (parsed.data.ok) waiting?.resolve(parsed.data.value);
      else waiting?.reject(new Error(`${name}: ${parsed.data.error}`));
    });
    child.on('exit', (code, killedBy) => {
      if (stopped) return;
      death = `the ${name} process exited (${killedBy ?? `code ${code ?? '?'}`})`;
      const error = new Error(death);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
      reject(error);
    });
  });
  // Settled either way below; a late exit must not surface as an unhandled rejection.
  readyValue.catch(() => undefined);
  const readyAs = await untilAborted(readyValue, signal);
  return {
    name,
    pid: child.pid ?? 0,
    ready: readyAs,
    died: () => death,
    stop,
    call(kind, payload) {
      if (death !== null) return Promise.reject(new Error(death));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, kind, payload });
      });
    },
  };
}
