/**
 * Conversions between the KurrentDB protocol's messages and the double's log: identifiers, positions,
 * filters and recorded events, in the shapes both of the client's transports (grpc-js and its Rust
 * bridge) read.
 */
import type * as SharedPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb.js';
import type { From, StoredEvent } from './log.ts';
import {
  type AllOptions,
  type FilterExpression,
  type ReadOptions,
  type ReadResp,
  type StreamOptions,
  sharedPb,
  streamsPb,
  timestampPb,
} from './protocol.ts';

export const textOf = (identifier: SharedPb.StreamIdentifier | undefined): string =>
  Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

const U64 = (1n << 64n) - 1n;
const hex = (bits: string) => (BigInt(bits) & U64).toString(16).padStart(16, '0');

/** Lower-case text of a UUID sent either way the protocol allows. */
export function uuidText(uuid: SharedPb.UUID | undefined): string {
  const structured = uuid?.getStructured();
  if (!structured) return (uuid?.getString() ?? '').toLowerCase();
  const ms = hex(structured.getMostSignificantBits());
  const ls = hex(structured.getLeastSignificantBits());
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-${ms.slice(12)}-${ls.slice(0, 4)}-${ls.slice(4)}`;
}

export const empty = () => new sharedPb.Empty();

function recorded(event: StoredEvent) {
  const message = new streamsPb.ReadResp.ReadEvent.RecordedEvent();
  const id = new sharedPb.UUID();
  id.setString(event.id);
  const stream = new sharedPb.StreamIdentifier();
  stream.setStreamName(Buffer.from(event.stream, 'utf8'));
  message.setId(id);
  message.setStreamIdentifier(stream);
  message.setStreamRevision(event.revision.toString());
  message.setCommitPosition(event.position.toString());
  message.setPreparePosition(event.position.toString());
  const metadata = message.getMetadataMap();
  metadata.set('type', event.type);
  metadata.set('content-type', event.contentType);
  metadata.set('created', event.created.toString());
  message.setCustomMetadata(event.customMetadata);
  message.setData(event.data);
  return message;
}

export function eventMessage(event: StoredEvent): ReadResp {
  const read = new streamsPb.ReadResp.ReadEvent();
  read.setEvent(recorded(event));
  read.setCommitPosition(event.position.toString());
  const response = new streamsPb.ReadResp();
  response.setEvent(read);
  return response;
}

export function streamNotFoundMessage(stream: string): ReadResp {
  const identifier = new sharedPb.StreamIdentifier();
  identifier.setStreamName(Buffer.from(stream, 'utf8'));
  const notFound = new streamsPb.ReadResp.StreamNotFound();
  notFound.setStreamIdentifier(identifier);
  const response = new streamsPb.ReadResp();
  response.setStreamNotFound(notFound);
  return response;
}

export function confirmationMessage(subscriptionId: string): ReadResp {
  const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation();
  confirmation.setSubscriptionId(subscriptionId);
  const response = new streamsPb.ReadResp();
  response.setConfirmation(confirmation);
  return response;
}

export function checkpointMessage(position: bigint): ReadResp {
  const checkpoint = new streamsPb.ReadResp.Checkpoint();
  checkpoint.setCommitPosition(position.toString());
  checkpoint.setPreparePosition(position.toString());
  checkpoint.setTimestamp(timestampPb.Timestamp.fromDate(new Date()));
  const response = new streamsPb.ReadResp();
  response.setCheckpoint(checkpoint);
  return response;
}

/** The caught-up and fell-behind messages a subscription to `$all` sends, at `position` when known. */
export function modeMessage(mode: 'caughtUp' | 'fellBehind', position: bigint | null): ReadResp {
  const message =
    mode === 'caughtUp' ? new streamsPb.ReadResp.CaughtUp() : new streamsPb.ReadResp.FellBehind();
  message.setTimestamp(timestampPb.Timestamp.fromDate(new Date()));
  if (position !== null) {
    const at = new streamsPb.ReadResp.Position();
    at.setCommitPosition(position.toString());
    at.setPreparePosition(position.toString());
    message.setPosition(at);
  }
  const response = new streamsPb.ReadResp();
  if (message instanceof streamsPb.ReadResp.CaughtUp) response.setCaughtUp(message);
  else response.setFellBehind(message);
  return response;
}

function matches(expression: FilterExpression | undefined, value: string): boolean {
  if (!expression) return true;
  const prefixes = expression.getPrefixList();
  if (prefixes.length > 0) return prefixes.some((prefix) => value.startsWith(prefix));
  const regex = expression.getRegex();
  return regex === '' || new RegExp(regex).test(value);
}

/** The server-side filter of a read or subscription of `$all`: which events it keeps. */
export function filterOf(options: ReadOptions): (event: StoredEvent) => boolean {
  const filter = options.getFilter();
  if (!filter) return () => true;
  const byStream = filter.getStreamIdentifier();
  const byType = filter.getEventType();
  if (byStream) return (event) => matches(byStream, event.stream);
  if (byType) return (event) => matches(byType, event.type);
  return () => true;
}

/** How many filtered-out events pass between two checkpoints of a filtered subscription. */
export function checkpointInterval(options: ReadOptions): number {
  const filter = options.getFilter();
  const window = filter?.hasMax() ? filter.getMax() : 32;
  return Math.max(1, window * Math.max(1, filter?.getCheckpointintervalmultiplier() ?? 1));
}

export function streamFrom(options: StreamOptions): From {
  if (options.hasStart()) return 'start';
  if (options.hasEnd()) return 'end';
  return BigInt(options.getRevision());
}

export function allFrom(options: AllOptions): From {
  if (options.hasStart()) return 'start';
  if (options.hasEnd()) return 'end';
  return BigInt(options.getPosition()?.getCommitPosition() ?? '0');
}
