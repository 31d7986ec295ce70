// The push domain's words that its read side shares with the user export (src/queries/privacy-push.ts),
// which may not import the push layer: the categories of a push and the outcomes of a delivery.

/** The spec's push categories; each maps to one notification setting (chatMessages, ticketUpdates, systemNotices). */
export const pushCategories = ['chat', 'ticket', 'system'] as const;
export type PushCategory = (typeof pushCategories)[number];

/**
 * A device's outcome. `queued` until its send settles: `sent`, `failed` (retries used up, or refused for
 * good), `refused` (the messenger chat refused this once), `removed` (the service said the device is
 * gone, and it was unregistered), or skipped: `muted`, `online`, `not_configured`.
 */
export const deliveryOutcomes = [
  'queued',
  'sent',
  'failed',
  'refused',
  'removed',
  'muted',
  'online',
  'not_configured',
] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];
