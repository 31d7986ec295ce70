/**
 * What an event at Intercom (a webhook) or one of our own writes made stale in the support read cache:
 * the lists of these contacts, and the one conversation or ticket named.
 */
export interface SupportChange {
  readonly contactIds: readonly string[];
  readonly conversationId?: string | undefined;
  readonly ticketId?: string | undefined;
}

/** Marks cached provider reads stale, on this replica and (through Redis, when configured) on every other. */
export interface SupportCacheInvalidator {
  invalidate(change: SupportChange): Promise<void>;
}
