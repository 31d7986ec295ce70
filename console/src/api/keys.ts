/**
 * A fresh `Idempotency-Key`. A form takes one when it opens and keeps it until the server confirms, so a
 * second click, or a retry after a lost answer, creates one record, not two. `getRandomValues`, unlike
 * `randomUUID`, also works on plain http (a console reached by a LAN address in development).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
