import { type PrivacyEvent, privacyCodec, privacyStream } from '../events/privacy.ts';
import type { EventStore } from '../events/store/port.ts';
import { appendEvents, type CommandContext, type CommandResult } from './handler.ts';

export interface ErasureRecord {
  readonly userId: string;
  readonly erasureId: string;
  readonly at: string;
}

/**
 * Records the erasure in the log, where the projections forget the user (decision 048). Needs no decision:
 * the erasure was decided when it was asked for. The event id comes from the erasure, so a retried job
 * appends it once.
 */
export async function recordErasure(
  store: EventStore,
  erasure: ErasureRecord,
  context: Omit<CommandContext, 'commandId'>,
): Promise<CommandResult<PrivacyEvent>> {
  const events: PrivacyEvent[] = [{ type: 'userErased', data: { ...erasure } }];
  const result = await appendEvents(store, privacyStream(erasure.userId), events, {
    context: { ...context, commandId: `erasure:${erasure.erasureId}` },
    codec: privacyCodec,
    expected: 'any',
    occurredAt: erasure.at,
  });
  return {
    events: result.written ? events : [],
    nextRevision: result.nextRevision,
    position: result.position,
  };
}
