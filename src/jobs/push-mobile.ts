import { retryDelayMs } from '../lib/backoff.ts';
import type { SendOutcome } from '../integrations/push/port.ts';
import { mobileMessage } from '../push/messages.ts';
import { type Settled, settleDeliveries } from '../push/push-log.ts';
import { jobId, PUSH_QUEUES, type QueuedDevice, type SendJob } from '../push/queues.ts';
import { removeRejectedDevice, type PushWorkerDeps, stillToSend } from './push-context.ts';

/**
 * Sends one batch of mobile pushes through FCM (one sendEach of at most 500). A device whose delivery is
 * no longer queued (sent by an earlier run of this job) is left out. Per device: sent; removed when FCM no
 * longer knows the token; tried again later, with backoff, on quota and server errors (never removed for
 * those); failed once the tries are used up.
 */
export async function sendMobileBatch(deps: PushWorkerDeps, job: SendJob): Promise<void> {
  const sender = deps.mobile;
  if (sender === null) return;
  const devices = await stillToSend(deps, job);
  if (devices.length === 0) return;
  const stopTimer = deps.metrics.providerSeconds.startTimer({ provider: 'fcm' });
  const outcomes = await sender.sendEach(
    devices.map((d) => mobileMessage(job.content, d.token, deps.wording)),
  );
  stopTimer();
  const settled: Settled[] = [];
  const again: QueuedDevice[] = [];
  let askedMs = 0;
  for (const [i, device] of devices.entries()) {
    const outcome: SendOutcome = outcomes[i] ?? { outcome: 'retry', code: 'no-answer' };
    switch (outcome.outcome) {
      case 'sent':
        settled.push({ key: device.key, outcome: 'sent', code: null });
        break;
      case 'rejected':
        await removeRejectedDevice(deps, job.sourceId, device, 'fcm', outcome.code);
        settled.push({ key: device.key, outcome: 'removed', code: outcome.code });
        break;
      case 'retry':
        if (job.attempt < deps.retry.maxAttempts) {
          again.push(device);
          askedMs = Math.max(askedMs, outcome.retryAfterMs ?? 0);
          settled.push({ key: device.key, outcome: 'queued', code: outcome.code });
        } else settled.push({ key: device.key, outcome: 'failed', code: outcome.code });
        break;
      case 'refused':
      case 'failed':
        settled.push({ key: device.key, outcome: 'failed', code: outcome.code });
        break;
    }
  }
  await settleDeliveries(deps.pool, job.sourceId, settled);
  for (const s of settled)
    if (s.outcome !== 'queued') deps.metrics.deliveries.inc({ platform: 'mobile', outcome: s.outcome });
  if (again.length > 0) {
    const attempt = job.attempt + 1;
    const delay = retryDelayMs(job.attempt, deps.retry, askedMs);
    const at = Date.now() + delay;
    await deps.boss.send(
      PUSH_QUEUES.mobile,
      { ...job, devices: again, attempt },
      {
        id: jobId(`${job.sourceId}:m:${again[0]?.key ?? ''}:${attempt}`),
        startAfter: new Date(at),
      },
    );
    deps.wakeAt(PUSH_QUEUES.mobile, at);
    deps.logger.info(
      { sourceId: job.sourceId, devices: again.length, attempt, delayMs: delay },
      'push: mobile sends retried later',
    );
  }
}
