import {
  type ComplaintEvent,
  type ComplaintStatus,
  type ComplaintSubmittedData,
  complaintCodec,
  complaintStream,
} from '../events/complaints.ts';
import type { EventStore } from '../events/store/port.ts';
import { uuidV5 } from '../events/ids.ts';
import { invalidTransition, notFound } from '../lib/domain-error.ts';
import {
  appendEvents,
  type CommandContext,
  type CommandResult,
  type Decider,
  handleCommand,
} from './handler.ts';

export interface ComplaintState {
  /** null until the complaint is submitted. */
  readonly status: ComplaintStatus | null;
}

/**
 * Every command carries its instant (`at`): deciders read no clock. A submission arrives checked: the
 * route has found the reason active and the targets and files the user's own (decision 030).
 */
export type ComplaintCommand =
  | ({ readonly type: 'submit' } & ComplaintSubmittedData)
  | { readonly type: 'resolve'; readonly adminId: string; readonly note?: string; readonly at: string };

type Submit = Extract<ComplaintCommand, { type: 'submit' }>;
type Submitted = Extract<ComplaintEvent, { type: 'complaintSubmitted' }>;

const initialState: ComplaintState = { status: null };

function decideSubmit(command: Submit, state: ComplaintState): [Submitted] {
  if (state.status !== null) throw invalidTransition('This complaint exists already.');
  const { userId, reason, text, conversationId, ticketId, attachments, at } = command;
  const targets = {
    ...(conversationId === undefined ? {} : { conversationId }),
    ...(ticketId === undefined ? {} : { ticketId }),
  };
  return [{ type: 'complaintSubmitted', data: { userId, reason, text, ...targets, attachments, at } }];
}

/**
 * A complaint's life: submitted by a user, resolved once by an admin (with an optional note). Resolving
 * again is a conflict, not a no-op: a second admin's note would otherwise be dropped without a word.
 */
export const complaintDecider: Decider<ComplaintCommand, ComplaintState, ComplaintEvent> = {
  initialState,
  evolve(state, event) {
    switch (event.type) {
      case 'complaintSubmitted':
        return { status: 'open' };
      case 'complaintResolved':
        return { status: 'resolved' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'submit':
        return decideSubmit(command, state);
      case 'resolve': {
        if (state.status === null) throw notFound('No such complaint.');
        if (state.status === 'resolved') throw invalidTransition('The complaint is resolved already.');
        const { adminId, note, at } = command;
        return [
          { type: 'complaintResolved', data: { adminId, ...(note === undefined ? {} : { note }), at } },
        ];
      }
    }
  },
};

// A fixed random v4: changing it would change the id a retried submission is given.
const COMPLAINT_ID_NAMESPACE = '9d3c6f0e-4b1a-4e57-8a2d-6c0b7e5f1a93';

/**
 * The new complaint's id, from the command id: with an Idempotency-Key a retry after a lost answer lands
 * on the same stream, where the store recognises its events and appends nothing.
 */
export const complaintIdOf = (context: CommandContext): string =>
  uuidV5(`complaint\u0000${context.commandId}`, COMPLAINT_ID_NAMESPACE);

/**
 * Submits a complaint: decided on the empty stream its new id starts, and appended without a read
 * (`no_stream`), as a new comment is.
 */
export async function submitComplaint(
  store: EventStore,
  command: Submit,
  context: CommandContext,
): Promise<CommandResult<ComplaintEvent> & { readonly complaintId: string }> {
  const complaintId = complaintIdOf(context);
  const events = decideSubmit(command, initialState);
  const result = await appendEvents(store, complaintStream(complaintId), events, {
    context,
    codec: complaintCodec,
    expected: 'no_stream',
    occurredAt: new Date().toISOString(),
  });
  return { events, nextRevision: result.nextRevision, position: result.position, complaintId };
}

/** Resolves a complaint (read, fold, decide, append). */
export function resolveComplaint(
  store: EventStore,
  complaintId: string,
  command: Extract<ComplaintCommand, { type: 'resolve' }>,
  context: CommandContext,
): Promise<CommandResult<ComplaintEvent>> {
  return handleCommand({
    store,
    stream: complaintStream(complaintId),
    decider: complaintDecider,
    codec: complaintCodec,
    command,
    context,
  });
}
