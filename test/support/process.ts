import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Spawned {
  readonly child: ChildProcess;
  /** stdout and stderr as they arrived, interleaved. */
  output(): string;
  /** Each stream on its own. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Resolves when the combined output matches `pattern`; rejects on exit or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
}

/**
 * Runs a command from the repository root with only the environment given (plus PATH and HOME), with
 * `input` on its stdin (none by default).
 */
export function spawnService(
  command: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Spawned {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  let text = '';
  const streams = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const onData = (from: keyof typeof streams) => (chunk: Buffer) => {
    const arrived = chunk.toString('utf8');
    text += arrived;
    streams[from] += arrived;
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData('stdout'));
  child.stderr?.on('data', onData('stderr'));
  const exited = new Promise<number | string>((done) => {
    child.on('exit', (code, signal) => {
      done(code ?? signal ?? -1);
      for (const l of listeners) l();
    });
  });
  return {
    child,
    output: () => text,
    stdout: () => streams.stdout,
    stderr: () => streams.stderr,
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise((done, fail) => {
        const check = () => {
          const match = pattern.exec(text);
          if (match) {
            cleanup();
            done(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            fail(new Error(`process exited before ${String(pattern)}:\n${text}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          fail(new Error(`timed out waiting for ${String(pattern)}:\n${text}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}
