import { benchAdmin } from './admin.ts';
import { benchChannel } from './channel.ts';
import { benchChat } from './chat.ts';
import { benchComments } from './comments.ts';
import { benchContentSafety } from './content-safety.ts';
import { benchEventStore } from './eventstore/bench.ts';
import { benchFiles } from './files.ts';
import { benchFleet } from './fleet.ts';
import { benchPush } from './push.ts';
import { benchSettingsRead } from './settings-read.ts';

// `npm run bench` runs the settings read (as it always has); `npm run bench -- <name>` picks one.
const benchmarks: Readonly<Record<string, (signal: AbortSignal) => Promise<number>>> = {
  'settings-read': benchSettingsRead,
  eventstore: benchEventStore,
  admin: benchAdmin,
  files: benchFiles,
  channel: benchChannel,
  comments: benchComments,
  'content-safety': benchContentSafety,
  chat: benchChat,
  fleet: benchFleet,
  push: benchPush,
};

async function all(signal: AbortSignal): Promise<number> {
  let code = 0;
  for (const run of Object.values(benchmarks)) code = Math.max(code, await run(signal));
  return code;
}

async function main(args: readonly string[]): Promise<number> {
  const name = args[0] ?? 'settings-read';
  const run = name === 'all' ? all : benchmarks[name];
  if (args.length > 1 || !run) {
    process.stderr.write(`usage: npm run bench [-- ${[...Object.keys(benchmarks), 'all'].join(' | ')}]\n`);
    return 2;
  }
  // Ctrl-C stops the load and still tears down, so no cluster, database or directory is left behind.
  const controller = new AbortController();
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    process.once(s, () => {
      controller.abort();
    });
  }
  try {
    return await run(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      process.stderr.write('bench: interrupted; no report written\n');
      return 130;
    }
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
