// What the push pipeline needs of a push service, whichever library stands behind it. Outcomes carry
// codes and provider descriptions only: never a token, a title or a body.

/** One mobile push as FCM takes it: every `data` value is a string (FCM refuses anything else). */
export interface MobileMessage {
  readonly token: string;
  readonly notification: { readonly title: string; readonly body: string };
  readonly data: Readonly<Record<string, string>>;
}

/** One messenger push: a bot message, with at most one button that opens the mini-app. */
export interface MessengerMessage {
  readonly chatId: string;
  readonly text: string;
  readonly button?: { readonly text: string; readonly url: string };
}

/**
 * What became of one send.
 * - `sent`: the service took it.
 * - `rejected`: the device cannot be reached this way again (FCM: token not registered, or an
 *   invalid-argument that names the token; Telegram: chat not found). The device should be removed.
 * - `refused`: this device refused this time (Telegram 403: bot blocked, user deactivated, never started
 *   the bot). Repeated refusals remove the device.
 * - `retry`: try again later (quota, 429, 5xx, network); `retryAfterMs` when the service said how long.
 * - `failed`: a permanent failure of this message that says nothing about the device (a payload the
 *   service refused): not retried, device kept.
 */
export type SendOutcome =
  | { readonly outcome: 'sent' }
  | { readonly outcome: 'rejected'; readonly code: string }
  | { readonly outcome: 'refused'; readonly code: string }
  | { readonly outcome: 'retry'; readonly code: string; readonly retryAfterMs?: number }
  | { readonly outcome: 'failed'; readonly code: string };

export interface MobileSender {
  /** At most 500 messages; answers one outcome per message, in order. Never throws for one message. */
  sendEach(messages: readonly MobileMessage[]): Promise<readonly SendOutcome[]>;
  close(): Promise<void>;
}

export interface MessengerSender {
  send(message: MessengerMessage): Promise<SendOutcome>;
  close(): Promise<void>;
}

/** FCM's limit per sendEach call. */
export const MOBILE_BATCH_LIMIT = 500;
