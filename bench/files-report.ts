import type { FilesResults, PhaseName } from './files.ts';
import { MIB } from './files-transfer.ts';
import { median } from './load.ts';
import { machine } from './machine.ts';
import { fixed, targetsSection, type Verdict } from './report.ts';

const MAX_GROWTH_MIB = 150;

// Each phase: its short name, then what it does.
const PHASE_ROWS: readonly (readonly [PhaseName, string, string])[] = [
  ['uploads', 'uploads', '`POST /api/files/upload`'],
  ['downloads', 'downloads', '`GET /api/files/:id`'],
  ['rawCopy', 'raw copy', '`copyFile` of the payload file'],
  ['rawWrite', 'raw write', '`writeFile` of the payload Buffer'],
];

const mib = (bytes: number) => fixed(bytes / MIB, 1);
const percent = (share: number) => `${fixed(share * 100, 1)} %`;
const medianRate = (results: FilesResults, name: PhaseName) =>
  median(results.rounds.map((r) => r[name].phase.mibPerSecond));
const peakOf = (results: FilesResults, name: PhaseName) =>
  Math.max(...results.rounds.map((r) => r[name].peakRss));

export function filesVerdicts({ settings, memory }: FilesResults): Verdict[] {
  return [
    {
      target:
        `peak RSS growth < ${MAX_GROWTH_MIB} MiB over ${settings.files} concurrent ` +
        `${settings.fileMib} MiB uploads, downloads and raw copies`,
      actual: `${mib(memory.growth)} MiB`,
      pass: memory.growth < MAX_GROWTH_MIB * MIB,
    },
  ];
}

function throughputSection(results: FilesResults): string[] {
  const raw = medianRate(results, 'rawCopy');
  const rounds = results.rounds.map((_, i) => `round ${i + 1}`);
  return [
    '## Throughput (MiB/s)',
    '',
    `| | ${rounds.join(' | ')} | median | median wall time | median / raw copy |`,
    `|---|${rounds.map(() => '---:|').join('')}---:|---:|---:|`,
    ...PHASE_ROWS.map(([name, short, what]) => {
      const phases = results.rounds.map((r) => r[name].phase);
      const seconds = median(phases.map((p) => p.seconds));
      return (
        `| ${short}: ${what} | ${phases.map((p) => fixed(p.mibPerSecond, 0)).join(' | ')} | ` +
        `${fixed(medianRate(results, name), 0)} | ${fixed(seconds)} s | ${percent(medianRate(results, name) / raw)} |`
      );
    }),
    '',
    `- uploads / raw write (medians): ${percent(medianRate(results, 'uploads') / medianRate(results, 'rawWrite'))}; ` +
      'the raw write is the upload minus HTTP, multipart parsing, the content checks and the database row.',
    '- The last column is the ratio to the raw copy (the same bytes read and written on the same disk), ' +
      'the baseline the issue asks for.',
    '',
  ];
}

function memorySection(results: FilesResults): string[] {
  const { baseline, sampledPeak, kernelPeak, growth, collected } = results.memory;
  const row = (label: string, rss: number | undefined) =>
    rss === undefined
      ? `| ${label} | not readable | |`
      : `| ${label} | ${mib(rss)} | ${mib(rss - baseline)} |`;
  return [
    '## Memory (RSS of the one process: service, client and raw baselines)',
    '',
    '| | RSS (MiB) | over the baseline (MiB) |',
    '|---|---:|---:|',
    `| baseline: after the warm-up${collected ? ' and a full GC' : ''}, before the measured rounds | ${mib(baseline)} | |`,
    ...PHASE_ROWS.map(([name, short]) => row(`peak during ${short}`, peakOf(results, name))),
    row(`peak, sampled every ${results.settings.sampleMs} ms over every measured round`, sampledPeak),
    row('peak, kernel high-water mark (`VmHWM`, reset after the baseline)', kernelPeak),
    '',
    `- Peak growth (the higher peak minus the baseline): **${mib(growth)} MiB**. Buffering the uploads ` +
      `whole would take ${results.settings.files} × ${results.settings.fileMib} MiB = ` +
      `${results.settings.files * results.settings.fileMib} MiB on top of the baseline for the bytes alone.`,
    '- The payload Buffer (the client’s only copy of the bytes) is allocated before the baseline, so it is ' +
      'not in the growth; the client’s sockets, the service’s streams and the file system’s buffers are.',
    '',
  ];
}

/** The report of `npm run bench -- files`. */
export function renderFilesReport(results: FilesResults, checks: readonly Verdict[]): string {
  const { settings, service, disk, failures } = results;
  const { node, cpuCount, cpuModel, memoryGiB } = machine();
  const bytes = settings.fileMib * MIB;
  return [
    '# Benchmark: file uploads and downloads vs. a raw copy on the same disk',
    '',
    'Written by `npm run bench -- files` (bench/run.ts); overwritten on every run.',
    '',
    `- Date: ${results.date.toISOString()}`,
    `- Node: ${node}`,
    `- CPU: ${cpuCount} × ${cpuModel}; memory ${memoryGiB} GiB`,
    `- Payload: one ${settings.fileMib} MiB (${bytes} bytes) plain-text file (ASCII prose lines), made once in ` +
      'memory; every upload and raw write sends that one Buffer. MiB = 2^20 bytes, MiB/s = 2^20 bytes per ' +
      'second, throughout (the issue’s “MB” is read as MiB).',
    `- Rounds: ${settings.warmupFiles} of each transfer to warm up (not measured), then ${settings.rounds} ` +
      `rounds, each: ${settings.files} concurrent uploads, then ${settings.files} concurrent downloads of ` +
      `the files just uploaded, then ${settings.files} concurrent raw copies, then ${settings.files} ` +
      `concurrent raw writes. MiB/s = ${settings.files} × ${settings.fileMib} MiB / the phase’s wall time ` +
      '(all started at once, until the last one is done); the median is over the rounds.',
    '- Service: the real app (`startService`) with production settings (`NODE_ENV=production`, ' +
      `MAX_FILE_MB 20), LOG_LEVEL ${settings.logLevel}, database: ${service.database}, pool size ` +
      `${service.poolSize ?? 'slonik default'}; uploads stored by the local storage adapter in a fresh ` +
      `temporary directory (${disk.dir}, ${disk.filesystem}).`,
    '- Client: `node:http` with one keep-alive agent, each upload a multipart body written as the part’s ' +
      'head, the shared Buffer and the closing boundary, with a content-length; each download streamed ' +
      'and compared with the payload chunk by chunk, nothing kept. Uploads must answer 201 with the ' +
      'payload’s size, downloads 200 with exactly its bytes.',
    '- Raw baselines, in a subdirectory of the same upload directory: **raw copy**, `fs.promises.copyFile` ' +
      'of the payload written once to a file (disk to disk: the baseline the ratios use); **raw write**, ' +
      '`fs.promises.writeFile` of the payload Buffer (memory to disk, what an upload does without HTTP). ' +
      'Copies are removed after each round, outside the timing. Nothing here calls fsync, the service ' +
      'included: the writes land in the page cache and the reads come from it. `sync` runs before every ' +
      'phase (outside the timing), so none starts with the previous one’s dirty pages still to write.',
    '- The client, the service and the baselines run in one Node process and share its event loop, its ' +
      `${cpuCount} CPUs (with PostgreSQL) and its RSS.`,
    failures.length === 0
      ? '- Every upload answered 201 with the right size and every download 200 with the right bytes.'
      : `- **INVALID RUN: ${failures.length} failed transfers, first: ${failures[0] ?? ''}**`,
    '',
    ...throughputSection(results),
    ...memorySection(results),
    ...targetsSection(checks),
    '',
  ].join('\n');
}

/** The lines printed at the end of a run. */
export function filesSummary(results: FilesResults): string[] {
  const raw = medianRate(results, 'rawCopy');
  const { baseline, growth } = results.memory;
  return [
    ...PHASE_ROWS.map(([name, short]) => {
      const rate = medianRate(results, name);
      return `${short.padEnd(10)} ${fixed(rate, 0).padStart(6)} MiB/s (median)  ${percent(rate / raw)} of raw copy`;
    }),
    `RSS        baseline ${mib(baseline)} MiB  peak ${mib(baseline + growth)} MiB  growth ${mib(growth)} MiB`,
  ];
}
