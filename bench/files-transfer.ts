import { execFile } from 'node:child_process';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { type Agent, type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

export const MIB = 1024 * 1024;

// Prose the upload's text check accepts: ASCII, no control characters but \n, nothing like markup or script.
const LINE =
  'lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua\n';

/** `mib` MiB of plain text, made once; every upload and raw write sends this one Buffer. */
export const textPayload = (mib: number): Buffer => Buffer.alloc(mib * MIB, LINE);

/** Where and as whom the client talks to the service, over one keep-alive agent of its own. */
export interface Client {
  readonly base: string;
  readonly authorization: string;
  readonly agent: Agent;
}

export interface Phase {
  /** Wall time from starting every task at once to the last one done. */
  readonly seconds: number;
  readonly mibPerSecond: number;
  /** Why each failed task failed (a wrong status, size or byte, a connection error). */
  readonly failures: readonly string[];
}

export interface Timed<T> {
  readonly phase: Phase;
  /** What the tasks that succeeded resolved. */
  readonly values: readonly T[];
}

/** Runs every task at once, each moving `bytesEach` bytes; MiB/s counts the tasks that succeeded. */
export async function timed<T>(tasks: readonly (() => Promise<T>)[], bytesEach: number): Promise<Timed<T>> {
  const start = performance.now();
  const settled = await Promise.allSettled(tasks.map((task) => task()));
  const seconds = (performance.now() - start) / 1000;
  const values: T[] = [];
  const failures: string[] = [];
  for (const s of settled) {
    if (s.status === 'fulfilled') values.push(s.value);
    else failures.push(s.reason instanceof Error ? s.reason.message : String(s.reason));
  }
  const mibPerSecond = (values.length * bytesEach) / MIB / seconds;
  return { phase: { seconds, mibPerSecond, failures }, values };
}

/** One request; `body` is written as is (the Buffers are referenced by the socket, not copied). */
function send(
  client: Client,
  path: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: readonly Buffer[] = [],
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, client.base),
      { method, agent: client.agent, headers: { ...headers, authorization: client.authorization } },
      resolve,
    );
    req.on('error', reject);
    for (const chunk of body) req.write(chunk);
    req.end();
  });
}

async function textOf(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const BOUNDARY = 'bench-files-7d1e0c52a9f4';

/**
 * Uploads `payload` as the multipart field `file`: the part's head, the shared Buffer and the closing
 * boundary are written one after the other with a content-length, so the client holds no copy of the
 * bytes. Resolves the new file's id; anything but a 201 with the payload's size rejects.
 */
export async function upload(client: Client, payload: Buffer, fileName: string): Promise<string> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      'content-type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const headers = {
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    'content-length': String(head.length + payload.length + tail.length),
  };
  const response = await send(client, '/api/files/upload', 'POST', headers, [head, payload, tail]);
  const text = await textOf(response);
  const body = (response.statusCode === 201 ? JSON.parse(text) : {}) as { id?: unknown; size?: unknown };
  if (typeof body.id !== 'string' || body.size !== payload.length)
    throw new Error(`upload answered ${response.statusCode} ${text.slice(0, 200)}`);
  return body.id;
}

/**
 * Downloads file `id`, comparing each chunk with `payload` at its offset as it arrives (nothing is kept);
 * anything but a 200 with exactly the payload's bytes rejects.
 */
export async function download(client: Client, id: string, payload: Buffer): Promise<void> {
  const response = await send(client, `/api/files/${id}`, 'GET', {});
  if (response.statusCode !== 200) {
    const text = await textOf(response);
    throw new Error(`download answered ${response.statusCode} ${text.slice(0, 200)}`);
  }
  let received = 0;
  let same = true;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    const end = received + chunk.length;
    same &&= end <= payload.length && chunk.equals(payload.subarray(received, end));
    received = end;
  }
  if (received !== payload.length) throw new Error(`download sent ${received} of ${payload.length} bytes`);
  if (!same) throw new Error('download sent other bytes than were uploaded');
}

const numbered = (dir: string, prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => join(dir, `${prefix}-${i}`));

/** The raw baselines write into `dir`, then remove what they wrote (outside the timing). */
async function rawPhase(
  paths: readonly string[],
  bytesEach: number,
  each: (path: string) => Promise<void>,
): Promise<Timed<void>> {
  const done = await timed(
    paths.map((path) => () => each(path)),
    bytesEach,
  );
  await Promise.all(paths.map((path) => rm(path, { force: true })));
  return done;
}

/** `count` concurrent `copyFile`s of `source` (the payload on disk) into `dir`. */
export const rawCopy = (
  source: string,
  dir: string,
  count: number,
  bytesEach: number,
): Promise<Timed<void>> =>
  rawPhase(numbered(dir, 'copy', count), bytesEach, (path) => copyFile(source, path));

/** `count` concurrent `writeFile`s of the payload Buffer into `dir`: what an upload does, minus HTTP. */
export const rawWrite = (dir: string, count: number, payload: Buffer): Promise<Timed<void>> =>
  rawPhase(numbered(dir, 'write', count), payload.length, (path) => writeFile(path, payload));

/**
 * Writes every dirty page out (`sync`), so that each phase starts from the same page cache: without it,
 * what earlier phases left dirty makes the kernel throttle later writers down to the disk's own speed.
 */
export async function flushWrites(): Promise<void> {
  await promisify(execFile)('sync');
}
