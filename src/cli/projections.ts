import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { printable } from '../lib/printable.ts';
import { allProjections, projectionNamed } from '../projections/index.ts';
import { resumeProjection } from '../projections/checkpoints.ts';
import type { Projection } from '../projections/projection.ts';
import { rebuildProjection } from '../projections/rebuild.ts';
import { projectionStatuses } from '../projections/status.ts';
import { type CliSession as Session, withSession } from './database.ts';

function named(name: string | undefined): Projection {
  const projection = name === undefined ? undefined : projectionNamed(name);
  if (projection) return projection;
  const known = allProjections.map((p) => p.name).join(', ');
  throw new Error(
    name === undefined
      ? `a projection name is needed: one of ${known}`
      : `no projection named '${printable(name)}': one of ${known}`,
  );
}

async function rebuild(session: Session, name: string | undefined): Promise<void> {
  const projection = named(name);
  // On a terminal a live bar; redirected (CI, logs) a line every few seconds.
  const bar = new SingleBar(
    {
      format: `${projection.name} |{bar}| {percentage}% | {value}/{total} events | {phase}`,
      noTTYOutput: true,
      notTTYSchedule: 2_000,
    },
    Presets.shades_classic,
  );
  bar.start(0, 0, { phase: 'filling' });
  let result;
  try {
    result = await rebuildProjection({
      pool: session.pool,
      store: session.store,
      connectionString: session.url,
      projection,
      onProgress: ({ applied, expected, phase }) => {
        bar.setTotal(expected);
        bar.update(applied, { phase });
      },
    });
  } finally {
    bar.stop();
  }
  process.stdout.write(
    `rebuilt ${projection.name}: ${result.applied} events into generation ${result.generation}; ` +
      `the service reads it now (generation ${result.previousGeneration} dropped)\n`,
  );
}

async function status({ pool }: Session): Promise<void> {
  const rows = await projectionStatuses(pool);
  const lines = rows.map((r) => {
    // The failure's text is an error message, which may quote an event's data.
    const failure =
      r.status === 'failed'
        ? ` on event ${printable(r.failed_event_id ?? '?')}: ${printable(r.error ?? '')}`
        : '';
    return `${printable(r.name)}: generation ${r.active_generation}, ${r.events_applied} events applied, ${r.status}${failure}`;
  });
  process.stdout.write(`${lines.length > 0 ? lines.join('\n') : 'no projection has run yet'}\n`);
}

async function resume({ pool }: Session, name: string | undefined): Promise<void> {
  const projection = named(name);
  const resumed = await resumeProjection(pool, projection.name);
  process.stdout.write(
    resumed
      ? `${projection.name} resumes from its checkpoint; its failed event is tried again\n`
      : `${projection.name} had not failed; nothing to do\n`,
  );
}

const actions = { status, rebuild, resume } as const;
const isAction = (action: string | undefined): action is keyof typeof actions =>
  action !== undefined && Object.hasOwn(actions, action);

export async function runProjectionsCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [action, name] = positionals;
  if (!isAction(action)) {
    throw new Error(
      `unknown projections command '${printable(action ?? '')}'; use status, resume <name> or rebuild <name>`,
    );
  }
  await withSession(config, logger, (session) => actions[action](session, name));
}
