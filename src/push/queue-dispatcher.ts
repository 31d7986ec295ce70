import type { JobQueue } from '../db/job-queue.ts';
import type { PushContent } from './content.ts';
import type { PushDispatcher, PushRequest } from './dispatcher.ts';
import { type FanoutJob, jobId, PUSH_QUEUES } from './queues.ts';

/** Pushes to many: a post published with `notify`, a system notice (to some users or to everyone). */
export interface PushBroadcaster {
  broadcast(sourceId: string, content: PushContent, userIds: readonly string[] | null): Promise<void>;
}

const contentOf = (request: PushRequest): PushContent =>
  request.category === 'chat'
    ? { kind: 'chat', conversationId: request.conversationId ?? '' }
    : { kind: 'ticket', ticketId: request.ticketId ?? '', csat: request.csat ?? false };

/**
 * Hands pushes to the durable queue: one fan-out job per source, its id derived from the source id, so a
 * redelivered webhook, a re-run processor or a retried request queues nothing twice (decision 025).
 * A `preview` is dropped here unless PUSH_SHOW_PREVIEW is on.
 */
export function createQueueDispatcher(
  boss: JobQueue,
  options: { readonly showPreview: boolean },
): PushDispatcher & PushBroadcaster {
  const queue = (sourceId: string, given: PushContent, userIds: readonly string[] | null) => {
    // Without PUSH_SHOW_PREVIEW no text is kept in the queue's rows either.
    const content = options.showPreview || !('preview' in given) ? given : { ...given, preview: undefined };
    const job: FanoutJob = {
      sourceId,
      content,
      userIds: userIds === null ? null : [...userIds],
      createdAt: Date.now(),
    };
    return boss.send(PUSH_QUEUES.fanout, job, { id: jobId(sourceId) });
  };
  return {
    async dispatch(request) {
      await queue(request.sourceId, contentOf(request), [request.userId]);
    },
    async broadcast(sourceId, content, userIds) {
      await queue(sourceId, content, userIds);
    },
  };
}
