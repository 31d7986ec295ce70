import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { type ReplayedChannel, replayModeration } from '../commands/moderation-replay.ts';
import { printable } from '../lib/printable.ts';
import { withSession } from './database.ts';
import { moderationUsage } from './usage.ts';

/** Columns padded to their widest cell; every cell printable (ids and reasons come from users). */
function table(header: readonly string[], given: readonly (readonly string[])[]): string {
  const rows = given.map((row) => row.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** What stands for what an erasure took (decision 048). */
const ERASED = '(erased)';

/** The replay as an operator reads it: three tables. */
export function renderReplay(replayed: ReplayedChannel): string {
  const comments = table(
    ['comment', 'post', 'author', 'status', 'created', 'reports', 'open'],
    replayed.comments.map((c) => [
      c.id,
      c.postId,
      c.authorId ?? ERASED,
      c.status,
      c.createdAt,
      String(c.reports),
      String(c.openReports),
    ]),
  );
  const bans = table(
    ['banned user', 'until', 'reason'],
    replayed.bans.map((b) => [b.userId, b.until ?? 'until lifted', b.reason ?? ERASED]),
  );
  const moderators = table(
    ['comment moderator'],
    replayed.moderators.map((m) => [m]),
  );
  return [
    `Channel ${replayed.channelId} as of ${replayed.asOf} (from the event store)`,
    '',
    `Comments (${replayed.comments.length})`,
    comments,
    '',
    `Bans in force (${replayed.bans.length})`,
    bans,
    '',
    `Comment moderators (${replayed.moderators.length})`,
    moderators,
    '',
  ].join('\n');
}

export async function runModerationCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'replay') throw new Error(`usage:\n${moderationUsage}`);
  const { values } = parseArgs({
    args: rest,
    options: { channel: { type: 'string' }, 'as-of': { type: 'string' } },
  });
  const channelId = values.channel;
  if (!channelId || !/^[0-9a-f-]{36}$/i.test(channelId)) throw new Error('--channel <uuid> is needed');
  const asOf = values['as-of'] === undefined ? new Date() : new Date(values['as-of']);
  if (Number.isNaN(asOf.getTime())) throw new Error('--as-of must be an ISO-8601 time');
  await withSession(config, logger, async ({ store }) => {
    process.stdout.write(renderReplay(await replayModeration(store, channelId, asOf)));
  });
}
