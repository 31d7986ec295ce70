import type { Logger } from 'pino';
import { createLeaderLocks, type LeaderLocks } from '../../src/db/leader-lock.ts';
import { createNotifications } from '../../src/db/notifications.ts';
import { createLogger } from '../../src/http/logger.ts';
import { type ChangeFeed, createChangeFeed } from '../../src/projections/changes.ts';

// What one process of the service has of its own, for tests that play several in one: a notification
// connection under a change feed, and leader locks.

/** A change feed on a notification connection of its own; closing the feed closes the connection. */
export function replicaChangeFeed(url: string, logger: Logger, now?: () => number): ChangeFeed {
  const notifications = createNotifications({ connectionString: url, logger });
  const feed = createChangeFeed({ logger, notifications, ...(now === undefined ? {} : { now }) });
  return {
    ...feed,
    async close() {
      await feed.close();
      await notifications.close();
    },
  };
}

/** Leader locks on a connection of their own, trying again every `retryMs`. */
export const replicaLocks = (
  url: string,
  retryMs = 100,
  logger: Logger = createLogger('silent'),
): LeaderLocks => createLeaderLocks({ connectionString: url, logger, retryMs });
