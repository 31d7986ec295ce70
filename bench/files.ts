import { mkdir, statfs, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localStorage } from '../src/integrations/storage/local.ts';
import { exitCode, writeReport } from './against-hello.ts';
import { positiveInt, say } from './env.ts';
import { filesSummary, filesVerdicts, renderFilesReport } from './files-report.ts';
import {
  type Client,
  download,
  flushWrites,
  type Phase,
  type Timed,
  rawCopy,
  rawWrite,
  textPayload,
  timed,
  upload,
} from './files-transfer.ts';
import { targetLines } from './report.ts';
import { collectGarbage, kernelPeakRss, resetKernelPeak, type RssSampler, sampleRss } from './rss.ts';
import { startService, temporaryDirectory } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/files.md', import.meta.url));
const FILE_MIB = 10;
const WARMUP_FILES = 2;
const SAMPLE_MS = 10;
// Storage keys have no '.', so this directory beside the stored objects can never be one of them.
const RAW_DIR = 'raw.bench';

export interface FilesSettings {
  /** Concurrent transfers per phase. */
  readonly files: number;
  readonly fileMib: number;
  /** Transfers of each kind in the unmeasured warm-up round. */
  readonly warmupFiles: number;
  readonly rounds: number;
  /** How often the RSS is sampled. */
  readonly sampleMs: number;
  readonly logLevel: string;
  readonly poolSize: number | undefined;
}

export interface Measured {
  readonly phase: Phase;
  /** The highest RSS sampled during the phase. */
  readonly peakRss: number;
}

export const PHASES = ['uploads', 'downloads', 'rawCopy', 'rawWrite'] as const;
export type PhaseName = (typeof PHASES)[number];
export type Round = Readonly<Record<PhaseName, Measured>>;

export interface Memory {
  /** RSS after the warm-up and a full garbage collection, before the measured rounds. */
  readonly baseline: number;
  readonly collected: boolean;
  /** The highest sampled RSS over the measured rounds. */
  readonly sampledPeak: number;
  /** The kernel's high-water mark over the measured rounds (reset after the baseline), if readable. */
  readonly kernelPeak: number | undefined;
  /** The higher of the two peaks, minus the baseline. */
  readonly growth: number;
}

export interface FilesResults {
  readonly settings: FilesSettings;
  readonly date: Date;
  readonly service: { readonly database: string; readonly poolSize: number | undefined };
  readonly disk: { readonly dir: string; readonly filesystem: string };
  readonly rounds: readonly Round[];
  readonly memory: Memory;
  /** Every failed transfer, warm-up included; any makes the run invalid. */
  readonly failures: readonly string[];
}

interface Bench {
  readonly client: Client;
  readonly payload: Buffer;
  /** The payload on disk, the raw copy's source. */
  readonly source: string;
  readonly rawDir: string;
  readonly sampler: RssSampler;
  readonly signal: AbortSignal;
}

const FILESYSTEMS: Readonly<Record<number, string>> = {
  0xef53: 'ext2/3/4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x01021994: 'tmpfs (memory, not a disk)',
  0x794c7630: 'overlayfs',
};

async function filesystemOf(dir: string): Promise<string> {
  const { type } = await statfs(dir);
  return FILESYSTEMS[type] ?? `type 0x${type.toString(16)}`;
}

async function tracked<T>(bench: Bench, run: () => Promise<Timed<T>>): Promise<Measured & Timed<T>> {
  bench.signal.throwIfAborted();
  await flushWrites();
  bench.sampler.reset();
  const done = await run();
  return { ...done, peakRss: bench.sampler.peak() };
}

/** `count` concurrent uploads, then `count` concurrent downloads of them, then both raw baselines. */
async function round(bench: Bench, count: number): Promise<Round> {
  const { client, payload, source, rawDir } = bench;
  const names = Array.from({ length: count }, (_, i) => `bench-${i}.txt`);
  const bytes = payload.length;
  const uploads = await tracked(bench, () =>
    timed(
      names.map((name) => () => upload(client, payload, name)),
      bytes,
    ),
  );
  const downloads = await tracked(bench, () =>
    timed(
      uploads.values.map((id) => () => download(client, id, payload)),
      bytes,
    ),
  );
  const copies = await tracked(bench, () => rawCopy(source, rawDir, count, bytes));
  const writes = await tracked(bench, () => rawWrite(rawDir, count, payload));
  return { uploads, downloads, rawCopy: copies, rawWrite: writes };
}

const failuresOf = (r: Round): string[] => PHASES.flatMap((name) => r[name].phase.failures);

const perSecond = (r: Round, name: PhaseName) => r[name].phase.mibPerSecond.toFixed(0);

/** `npm run bench -- files`: concurrent uploads and downloads of 10 MiB against a raw copy, and the RSS. */
export async function benchFiles(signal: AbortSignal): Promise<number> {
  const settings: FilesSettings = {
    files: positiveInt('BENCH_FILE_COUNT') ?? 20,
    fileMib: FILE_MIB,
    warmupFiles: WARMUP_FILES,
    rounds: positiveInt('BENCH_ROUNDS') ?? 3,
    sampleMs: SAMPLE_MS,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    poolSize: positiveInt('BENCH_POOL_SIZE'),
  };
  const payload = textPayload(FILE_MIB);
  return withTeardown(async (teardown) => {
    const uploadsDir = await temporaryDirectory('svc-bench-uploads-', teardown);
    const service = await startService({ ...settings, storage: localStorage(uploadsDir) }, teardown);
    const authorization = service.target.headers?.authorization;
    if (authorization === undefined) throw new Error('the service target carries no authorization header');
    const rawDir = join(uploadsDir, RAW_DIR);
    await mkdir(rawDir);
    const source = join(rawDir, 'source');
    await writeFile(source, payload);
    const agent = new Agent({ keepAlive: true });
    teardown.add('HTTP agent', async () => {
      agent.destroy();
    });
    const sampler = sampleRss(SAMPLE_MS);
    teardown.add('RSS sampler', async () => {
      sampler.stop();
    });
    const client = { base: service.base, authorization, agent };
    const bench: Bench = { client, payload, source, rawDir, sampler, signal };

    say(
      `files: ${WARMUP_FILES} of each transfer to warm up, then ${settings.rounds} rounds of ` +
        `${settings.files} concurrent ${FILE_MIB} MiB uploads, downloads, raw copies and raw writes`,
    );
    const warmup = await round(bench, WARMUP_FILES);
    const collected = collectGarbage();
    const baseline = process.memoryUsage.rss();
    const kernelReset = resetKernelPeak();
    const rounds: Round[] = [];
    for (let i = 0; i < settings.rounds; i++) {
      const r = await round(bench, settings.files);
      rounds.push(r);
      say(
        `round ${i + 1}: MiB/s uploads ${perSecond(r, 'uploads')}, downloads ${perSecond(r, 'downloads')}, ` +
          `raw copy ${perSecond(r, 'rawCopy')}, raw write ${perSecond(r, 'rawWrite')}`,
      );
    }
    const kernelPeak = kernelReset ? kernelPeakRss() : undefined;
    const sampledPeak = Math.max(...rounds.flatMap((r) => PHASES.map((name) => r[name].peakRss)));

    const results: FilesResults = {
      settings,
      date: new Date(),
      service: { database: service.database, poolSize: service.poolSize },
      disk: { dir: uploadsDir, filesystem: await filesystemOf(uploadsDir) },
      rounds,
      memory: {
        baseline,
        collected,
        sampledPeak,
        kernelPeak,
        growth: Math.max(sampledPeak, kernelPeak ?? 0) - baseline,
      },
      failures: [warmup, ...rounds].flatMap(failuresOf),
    };
    const checks = filesVerdicts(results);
    await writeReport(REPORT_FILE, renderFilesReport(results, checks), [
      ...filesSummary(results),
      ...targetLines(checks),
    ]);
    for (const failure of new Set(results.failures)) process.stderr.write(`bench: ${failure}\n`);
    return exitCode(
      results.failures.length,
      'failed transfers (not 201/200, wrong size or bytes, connection errors)',
    );
  });
}
