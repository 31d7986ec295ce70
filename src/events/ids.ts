import { createHash, randomUUID } from 'node:crypto';

// Our own namespace for event ids (a random v4, fixed forever: changing it changes every derived id).
const EVENT_ID_NAMESPACE = '5b7e1a52-2f0c-4c39-9d0e-8f4a3b6c1d27';

/**
 * RFC 9562 UUID version 5 (SHA-1, name-based). A dozen lines on node:crypto instead of the `uuid`
 * package, whose current major conflicts with the peer range of the benchmark's Emmett (decision 007).
 */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (ns.length !== 16) throw new Error('the namespace must be a UUID');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of the n-th event a command appends to a stream. With an idempotency key the id is the same on
 * every retry, so the store recognises a retried append; without one every command is new.
 */
export function eventId(commandId: string, stream: string, index: number): string {
  return uuidV5(`${commandId}\u0000${stream}\u0000${index}`, EVENT_ID_NAMESPACE);
}

export const newCommandId = (): string => randomUUID();
