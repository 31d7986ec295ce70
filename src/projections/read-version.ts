import type { DatabasePool } from 'slonik';
import { type Position, reached } from '../events/envelope.ts';
import { type CheckpointReads, type CheckpointView, createCheckpointReads } from './checkpoint-reads.ts';
import type { LocalProgress } from './runner.ts';

export interface ReadVersions {
  /**
   * The named projections' versions, as of no earlier than this call: whichever replica applied a change
   * committed before it, the version shows it.
   */
  fresh(names: readonly string[]): Promise<Versions>;
}

export interface Versions {
  /** A token that changes whenever any of the named projections has changed its tables. */
  of(...names: readonly string[]): string;
}

/** The projections this process runs itself (the projection runner). */
export interface LocalProjections {
  local(name: string): LocalProgress | undefined;
}

export interface ReadVersionOptions {
  readonly local?: LocalProjections | undefined;
  /** How old the last database read may be for local progress to be trusted on its own. Default 1 s. */
  readonly confirmMs?: number;
  readonly now?: () => number;
}

/** The last checkpoint read, and when it was asked for. */
interface Confirmed {
  readonly at: number;
  readonly views: ReadonlyMap<string, CheckpointView>;
}

/** A node of the names given to `of`, in order: the text of the list that ends here. */
interface Combination {
  readonly next: Map<string, Combination>;
  text?: string;
}

const positionText = (position: Position | null) =>
  position === null ? '' : `${position.commit}:${position.prepare}`;

/**
 * Versions from per-projection texts. Each list of names gets its text built once, then found name by
 * name: callers pass literal names, whose hashes V8 keeps, where a joined key would be a fresh string to
 * hash on every poll.
 */
function versionsOf(textOf: (name: string) => string): Versions {
  const root: Combination = { next: new Map() };
  return {
    of(...names) {
      let node = root;
      for (const name of names) {
        let child = node.next.get(name);
        if (child === undefined) {
          child = { next: new Map() };
          node.next.set(name, child);
        }
        node = child;
      }
      node.text ??= names.map(textOf).join('|');
      return node.text;
    },
  };
}

/**
 * Caches keyed by these tokens stay correct across replicas without a bus: a projection moves its
 * checkpoint in the same transaction as its tables (decision 008), so an unchanged checkpoint means
 * unchanged tables. The checkpoints are read from the database, and concurrent callers share reads
 * (`CheckpointReads`).
 *
 * Except where this process runs the projection itself: then it is the only writer of that checkpoint,
 * and its runner's committed progress is the checkpoint, known without a query (decision 014). That holds
 * only while a recent read (at most `confirmMs` old, refreshed in the background) agrees: same live
 * generation, status running, and the database not ahead of the local runner. So a rebuild's switch, a
 * failure, a development reset or a lost leadership shows within about a second, and every batch the local
 * runner commits shows at once.
 */
export function createReadVersions(
  source: DatabasePool | CheckpointReads,
  options: ReadVersionOptions = {},
): ReadVersions {
  const reads = 'fresh' in source ? source : createCheckpointReads(source);
  const now = options.now ?? Date.now;
  const confirmMs = options.confirmMs ?? 1_000;
  let confirmed: Confirmed | null = null;
  let refreshing = false;

  const fromDatabase = async (): Promise<Versions> => {
    const asked = now();
    const views = await reads.fresh();
    if (confirmed === null || confirmed.at < asked) confirmed = { at: asked, views };
    return versionsOf((name) => views.get(name)?.version ?? '-');
  };

  const refreshInBackground = () => {
    if (refreshing) return;
    refreshing = true;
    void fromDatabase()
      .catch(() => undefined)
      .finally(() => {
        refreshing = false;
      });
  };

  // The runner replaces its progress object on every batch, so each object's text is built once.
  const texts = new WeakMap<LocalProgress, string>();
  const textOf = (progress: LocalProgress) => {
    let text = texts.get(progress);
    if (text === undefined) {
      text = `L${progress.epoch}:${progress.generation}:${positionText(progress.position)}`;
      texts.set(progress, text);
    }
    return text;
  };

  /** The local runner's version of `name`, when the last read confirms the runner is the one writing it. */
  const localVersion = (name: string, views: ReadonlyMap<string, CheckpointView>): string | null => {
    const progress = options.local?.local(name);
    const view = views.get(name);
    if (!progress || view?.status !== 'running' || view.generation !== progress.generation) return null;
    // The database ahead of the runner (or holding a position it has not) means another writer: ask it.
    if (view.position === null ? progress.position !== null : !reached(progress.position, view.position)) {
      return null;
    }
    return textOf(progress);
  };

  // Polls ask for the same lists of projections, and between two batches the answer is the same object:
  // the last one per list, kept while the confirming read and every runner's progress are unchanged.
  const lastLocal = new WeakMap<
    readonly string[],
    {
      readonly confirmed: Confirmed;
      readonly progress: readonly (LocalProgress | undefined)[];
      readonly versions: Versions;
    }
  >();

  /** The local runners' versions of `names`, when the last read (at most `confirmMs` old) confirms them. */
  const fromLocal = (names: readonly string[], local: LocalProjections): Versions | null => {
    const last = confirmed;
    if (last === null) return null;
    const age = now() - last.at;
    if (age >= confirmMs) return null;
    if (age >= confirmMs / 2) refreshInBackground();
    const memo = lastLocal.get(names);
    if (memo?.confirmed === last && names.every((n, i) => local.local(n) === memo.progress[i])) {
      return memo.versions;
    }
    const texts = new Map<string, string>();
    for (const name of names) {
      const text = localVersion(name, last.views);
      if (text === null) return null;
      texts.set(name, text);
    }
    const versions = versionsOf((name) => texts.get(name) ?? '-');
    lastLocal.set(names, { confirmed: last, progress: names.map((n) => local.local(n)), versions });
    return versions;
  };

  return {
    fresh(names) {
      const local = options.local && fromLocal(names, options.local);
      return local ? Promise.resolve(local) : fromDatabase();
    },
  };
}
