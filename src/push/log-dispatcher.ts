import type { Logger } from 'pino';
import { type NotificationSettings, readNotificationSettings } from './notification-settings.ts';
import type { DatabasePool } from '../db/pool.ts';
import { recordPush } from './push-log.ts';
import type { PushCategory, PushDispatcher, PushRequest } from './dispatcher.ts';

export interface LogDispatcherOptions {
  readonly pool: DatabasePool;
  readonly logger: Logger;
}

const settingOf: Record<PushCategory, keyof NotificationSettings> = {
  chat: 'chatMessages',
  ticket: 'ticketUpdates',
  system: 'systemNotices',
};

/** Ids only: a push names what to open, and nothing it could quote. */
const described = (request: PushRequest) => ({
  userId: request.userId,
  category: request.category,
  sourceId: request.sourceId,
  ...(request.conversationId === undefined ? {} : { conversationId: request.conversationId }),
  ...(request.ticketId === undefined ? {} : { ticketId: request.ticketId }),
  ...(request.csat === undefined ? {} : { csat: request.csat }),
});

/**
 * The dispatcher while no push service is configured (spec: "skipped and logged; nothing crashes"): each
 * push is recorded in push_log, which GET /api/devtools/pushes shows, and logged once. A category the
 * user muted is recorded as `muted`, since it would not have been sent either. Idempotent by source id:
 * a repeated dispatch records and logs nothing.
 */
export function createLogDispatcher({ pool, logger }: LogDispatcherOptions): PushDispatcher {
  return {
    async dispatch(request) {
      const settings = await readNotificationSettings(pool, request.userId);
      const muted = !settings[settingOf[request.category]];
      const added = await recordPush(pool, request, muted ? 'muted' : 'not_configured');
      if (!added) return;
      if (muted) logger.info(described(request), 'push skipped: category muted');
      else logger.info(described(request), 'push skipped: no push service configured');
    },
  };
}
