import { unregisterDevice } from '../commands/devices.ts';
import type { CommandContext } from '../commands/handler.ts';
import type { DatabasePool } from '../db/pool.ts';
import { forgetSupportReads } from './support-reads.ts';
import { contactOfUser, forgetContact } from './user-contacts.ts';
import type { EventStore } from '../events/store/port.ts';
import type { Position } from '../events/envelope.ts';
import { devicesOfUser } from '../queries/devices.ts';
import type { SupportServices } from '../wiring/support.ts';

export interface WipeDeps {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly support: Pick<SupportServices, 'contacts' | 'cache' | 'sandbox'>;
}

/**
 * Development only (API.md devtools): the user starts over as if new. Their contact mapping, read markers
 * and devices go; with the sandbox, so does the contact there. Answers the position of the last device
 * event, for the caller to wait on.
 */
export async function wipeContact(
  deps: WipeDeps,
  userId: string,
  context: CommandContext,
): Promise<Position | null> {
  let position: Position | null = null;
  for (const device of await devicesOfUser(deps.pool, userId)) {
    const result = await unregisterDevice(
      deps,
      { userId, token: device.token },
      { ...context, commandId: `${context.commandId}:${device.token}` },
    );
    position = result.position ?? position;
  }
  await forgetSupportReads(deps.pool, userId);
  const contactId = await contactOfUser(deps.pool, userId);
  deps.support.contacts.forget(userId);
  if (contactId === null) return position;
  await forgetContact(deps.pool, contactId);
  await deps.support.cache.invalidate({ contactIds: [contactId] });
  if (deps.support.sandbox?.state.contacts.has(contactId))
    deps.support.sandbox.operator.deleteContact(contactId);
  return position;
}
