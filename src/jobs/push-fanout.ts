import { type Recipient, recipientsPage, type SettingColumn } from '../queries/devices.ts';
import { describeError } from '../lib/error-text.ts';
import { categoryOf, deliveredByPolling, type PushCategory, type PushContent } from '../push/content.ts';
import {
  advanceFanout,
  type DeliveryOutcome,
  fanoutProgress,
  type NewDelivery,
  recordDeliveries,
  recordSource,
  setSourceOutcome,
} from '../push/push-log.ts';
import {
  deviceKey,
  type FanoutJob,
  jobId,
  PUSH_QUEUES,
  type QueuedDevice,
  type SendJob,
} from '../push/queues.ts';
import { MOBILE_BATCH_LIMIT } from '../integrations/push/port.ts';
import type { PushWorkerDeps } from './push-context.ts';

/** Users per fan-out page: about one FCM batch of devices. */
const PAGE_USERS = 400;

const settingOf: Record<PushCategory, SettingColumn> = {
  chat: 'chat_messages',
  ticket: 'ticket_updates',
  system: 'system_notices',
};

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/**
 * Whether a chat or ticket push goes now, waits, or is not needed (decision 026): a user seen polling after
 * the push's source came in has seen it; one seen polling just before waits a window, then goes unless a
 * poll came meanwhile.
 */
async function presenceCheck(deps: PushWorkerDeps, job: FanoutJob): Promise<'send' | 'online' | 'waiting'> {
  const userId = job.userIds?.length === 1 ? job.userIds[0] : undefined;
  if (!deliveredByPolling(job.content) || userId === undefined) return 'send';
  const seen = await deps.presence.lastSeen(userId);
  if (seen >= job.createdAt) return 'online';
  if (job.waited === true || seen === 0 || Date.now() - seen > deps.onlineWindowMs) return 'send';
  const waited: FanoutJob = { ...job, waited: true };
  const at = Math.max(seen, job.createdAt) + deps.onlineWindowMs;
  await deps.boss.send(PUSH_QUEUES.fanout, waited, {
    id: jobId(`${job.sourceId}:waited`),
    startAfter: new Date(at),
  });
  deps.wakeAt(PUSH_QUEUES.fanout, at);
  return 'waiting';
}

function outcomeOf(deps: PushWorkerDeps, recipient: Recipient, online: boolean): DeliveryOutcome {
  if (recipient.muted) return 'muted';
  if (online) return 'online';
  const configured = recipient.platform === 'mobile' ? deps.mobile !== null : deps.messenger !== null;
  return configured ? 'queued' : 'not_configured';
}

/** Queues one page's send jobs; their ids come from the source and the devices, so a re-run adds none. */
async function queueSends(
  deps: PushWorkerDeps,
  job: FanoutJob,
  queued: readonly (QueuedDevice & { platform: string })[],
) {
  const send = (name: string, devices: readonly QueuedDevice[]) => {
    const data: SendJob = { sourceId: job.sourceId, content: job.content, devices: [...devices], attempt: 1 };
    return { id: jobId(`${job.sourceId}:${name}:${devices[0]?.key ?? ''}:1`), data };
  };
  const strip = ({ userId, token, key }: QueuedDevice) => ({ userId, token, key });
  const mobile = chunks(queued.filter((d) => d.platform === 'mobile').map(strip), MOBILE_BATCH_LIMIT);
  const messenger = chunks(queued.filter((d) => d.platform === 'tma').map(strip), deps.messengerPerSecond);
  if (mobile.length > 0)
    await deps.boss.insert(
      PUSH_QUEUES.mobile,
      mobile.map((d) => send('m', d)),
    );
  if (messenger.length > 0)
    await deps.boss.insert(
      PUSH_QUEUES.messenger,
      messenger.map((d) => send('t', d)),
    );
}

/** The push's content with the start of its text, when previews are on and it has none yet. */
async function withPreview(deps: PushWorkerDeps, content: PushContent): Promise<PushContent> {
  if (!deps.wording.showPreview || deps.previewOf === undefined) return content;
  if (content.kind !== 'chat' || content.preview !== undefined) return content;
  try {
    const preview = await deps.previewOf(content);
    return preview === undefined ? content : { ...content, preview };
  } catch (error) {
    // A push without its preview is better than a push late or lost: the provider may be away.
    deps.logger.warn({ error: describeError(error) }, 'push: no preview, the text could not be read');
    return content;
  }
}

/** Pages one fan-out job works before it hands the rest to a job of its own (a bounded job time). */
const PAGES_PER_JOB = 50;

/**
 * Turns a source into deliveries: page by page over its users' devices, a delivery row per device (sent,
 * or skipped as muted, online or not configured) and send jobs for the ones to send. The page cursor is
 * kept on the source, so a fan-out cut short by a crash or a stop goes on where it stopped; a long one
 * goes on in a job of its own every PAGES_PER_JOB pages, so no job outlives its expiry.
 */
export async function fanOut(deps: PushWorkerDeps, job: FanoutJob, signal: AbortSignal): Promise<void> {
  const userId = deliveredByPolling(job.content) ? (job.userIds?.[0] ?? null) : null;
  await recordSource(deps.pool, { sourceId: job.sourceId, content: job.content, userId }, 'queued');
  const progress = await fanoutProgress(deps.pool, job.sourceId);
  if (progress.done) return;
  const presence = await presenceCheck(deps, job);
  if (presence === 'waiting') return;
  const setting = settingOf[categoryOf(job.content)];
  const content = await withPreview(deps, job.content);
  let cursor = progress.cursorUserId;
  let devices = progress.cursorUserId === null ? 0 : 1;
  for (let pages = 0; ; pages++) {
    if (signal.aborted) throw new Error('push fan-out stopped; it goes on from its cursor');
    if (pages === PAGES_PER_JOB) {
      await deps.boss.send(PUSH_QUEUES.fanout, job, { id: jobId(`${job.sourceId}:from:${cursor ?? ''}`) });
      return;
    }
    const page = await recipientsPage(deps.pool, {
      userIds: job.userIds,
      afterUserId: cursor,
      users: PAGE_USERS,
      setting,
    });
    if (page.length === 0) break;
    devices += page.length;
    const deliveries: (NewDelivery & { token: string })[] = page.map((r) => ({
      key: deviceKey(r.token),
      userId: r.userId,
      platform: r.platform,
      token: r.token,
      outcome: outcomeOf(deps, r, presence === 'online'),
    }));
    // Counted as recorded: a page done again after a crash adds nothing twice.
    for (const d of await recordDeliveries(deps.pool, job.sourceId, deliveries))
      if (d.outcome !== 'queued') deps.metrics.deliveries.inc({ platform: d.platform, outcome: d.outcome });
    await queueSends(
      deps,
      { ...job, content },
      deliveries.filter((d) => d.outcome === 'queued'),
    );
    cursor = page.at(-1)?.userId ?? cursor;
    await advanceFanout(deps.pool, job.sourceId, cursor, false);
    if (new Set(page.map((r) => r.userId)).size < PAGE_USERS) break;
  }
  await advanceFanout(deps.pool, job.sourceId, null, true);
  if (devices === 0) await setSourceOutcome(deps.pool, job.sourceId, 'no_device');
  else if (deps.mobile === null && deps.messenger === null)
    await setSourceOutcome(deps.pool, job.sourceId, 'not_configured');
}
