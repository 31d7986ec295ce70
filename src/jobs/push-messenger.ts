import { isAborted, sleep } from '../lib/abortable.ts';
import { retryDelayMs } from '../lib/backoff.ts';
import {
  clearRefusals,
  countRefusal,
  pauseMessenger,
  readMessengerPace,
  recordMessengerSends,
} from '../push/messenger-pace.ts';
import { messengerMessage } from '../push/messages.ts';
import { type Settled, settleDeliveries } from '../push/push-log.ts';
import { jobId, PUSH_QUEUES, type QueuedDevice, type SendJob } from '../push/queues.ts';
import { removeRejectedDevice, type PushWorkerDeps, stillToSend } from './push-context.ts';

/** Refusals in a row (Telegram 403: blocked, deactivated, never started) after which a chat is removed. */
export const REFUSALS_BEFORE_REMOVAL = 3;
/** Telegram: at most one message a second to one chat (with a margin for a send that leaves late). */
const PER_CHAT_MS = 1_050;

/**
 * Sends one messenger job (about a second's worth of chats), one message at a time at the bot's overall
 * pace. Messenger jobs run one at a time across every replica (a singleton queue), and a job lasts at least
 * as long as its sends take at that pace, so the whole process group keeps to it. A 429 holds the whole
 * bot for its retry_after: the rest of the job goes back to the queue to start after it.
 */
export async function sendMessengerBatch(
  deps: PushWorkerDeps,
  job: SendJob,
  signal: AbortSignal,
): Promise<void> {
  const sender = deps.messenger;
  if (sender === null) return;
  const devices = await stillToSend(deps, job);
  if (devices.length === 0) return;
  const pace = await readMessengerPace(
    deps.pool,
    devices.map((d) => d.key),
  );
  // 2 % slower than the set pace, so a send that leaves a few ms late never packs one more into a second.
  const intervalMs = (1_000 / deps.messengerPerSecond) * 1.02;
  let slot = Math.max(Date.now(), pace.pausedUntil);
  const settled: Settled[] = [];
  const sentTo = new Map<string, number>();
  const again: QueuedDevice[] = [];
  let heldUntil = 0;
  for (const [i, device] of devices.entries()) {
    const at = Math.max(slot, pace.chats.get(device.key) ?? 0);
    await sleep(Math.max(0, at - Date.now()), signal);
    if (isAborted(signal)) {
      again.push(...devices.slice(i));
      break;
    }
    // A job can wait long (a 429 holds the whole bot), so each chat is looked at again just before its
    // message: one unregistered or erased meanwhile gets nothing (decision 048).
    if ((await stillToSend(deps, { ...job, devices: [device] })).length === 0) continue;
    slot = Math.max(Date.now(), at) + intervalMs;
    const stopTimer = deps.metrics.providerSeconds.startTimer({ provider: 'telegram' });
    const outcome = await sender.send(messengerMessage(job.content, device.token, deps.wording));
    stopTimer();
    switch (outcome.outcome) {
      case 'sent':
        settled.push({ key: device.key, outcome: 'sent', code: null });
        sentTo.set(device.key, Date.now() + PER_CHAT_MS);
        break;
      case 'rejected':
        await removeRejectedDevice(deps, job.sourceId, device, 'telegram', outcome.code);
        settled.push({ key: device.key, outcome: 'removed', code: outcome.code });
        break;
      case 'refused': {
        const refusals = await countRefusal(deps.pool, device.key);
        deps.logger.warn(
          { deviceKey: device.key, code: outcome.code, refusals },
          'push: messenger chat refused the message',
        );
        if (refusals >= REFUSALS_BEFORE_REMOVAL) {
          await removeRejectedDevice(deps, job.sourceId, device, 'telegram', outcome.code);
          settled.push({ key: device.key, outcome: 'removed', code: outcome.code });
        } else settled.push({ key: device.key, outcome: 'refused', code: outcome.code });
        break;
      }
      case 'retry':
        if (outcome.retryAfterMs !== undefined) {
          // Telegram asked the bot to wait: every chat waits, on every replica.
          heldUntil = Date.now() + outcome.retryAfterMs;
          await pauseMessenger(deps.pool, heldUntil);
          settled.push({ key: device.key, outcome: 'queued', code: outcome.code });
          again.push(...devices.slice(i));
        } else if (job.attempt < deps.retry.maxAttempts) {
          again.push(device);
          settled.push({ key: device.key, outcome: 'queued', code: outcome.code });
        } else settled.push({ key: device.key, outcome: 'failed', code: outcome.code });
        break;
      case 'failed':
        settled.push({ key: device.key, outcome: 'failed', code: outcome.code });
        break;
    }
    if (heldUntil > 0) break;
  }
  await settleDeliveries(deps.pool, job.sourceId, settled);
  await clearRefusals(deps.pool, [...sentTo.keys()]);
  await recordMessengerSends(deps.pool, sentTo);
  for (const s of settled)
    if (s.outcome !== 'queued') deps.metrics.deliveries.inc({ platform: 'tma', outcome: s.outcome });
  if (again.length > 0) {
    const attempt = heldUntil > 0 ? job.attempt : job.attempt + 1;
    const startAfter = heldUntil > 0 ? heldUntil : Date.now() + retryDelayMs(job.attempt, deps.retry);
    await deps.boss.send(
      PUSH_QUEUES.messenger,
      { ...job, devices: again, attempt },
      {
        id: jobId(`${job.sourceId}:t:${again[0]?.key ?? ''}:${attempt}:${startAfter}`),
        startAfter: new Date(startAfter),
      },
    );
    deps.wakeAt(PUSH_QUEUES.messenger, startAfter);
  }
  // The next job (here or on another replica) starts no sooner than this one's pace allows.
  if (heldUntil === 0) await sleep(Math.max(0, slot - Date.now()), signal);
}
