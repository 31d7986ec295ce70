/**
 * The double's `Streams.Append`: a client stream of the options, then the proposed events; one answer,
 * success or wrong expected version, as a KurrentDB node gives it, unless an injected fault refuses it.
 */
import { type sendUnaryData, type ServerReadableStream, status } from '@grpc/grpc-js';
import type { Faults } from './faults.ts';
import type { EventLog, Expected, ProposedEvent } from './log.ts';
import { empty, textOf, uuidText } from './messages.ts';
import {
  type AppendOptions,
  type AppendReq,
  type AppendResp,
  type ProposedMessage,
  streamsPb,
} from './protocol.ts';

function expectedOf(options: AppendOptions): Expected {
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  if (options.hasRevision()) return { kind: 'revision', revision: BigInt(options.getRevision()) };
  return { kind: 'any' };
}

function proposed(message: ProposedMessage): ProposedEvent {
  const metadata = message.getMetadataMap();
  return {
    id: uuidText(message.getId()),
    type: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

function wrongExpectedVersion(expected: Expected, current: bigint | null): AppendResp {
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (current === null) wrong.setCurrentNoStream(empty());
  else wrong.setCurrentRevision(current.toString());
  if (expected.kind === 'revision') wrong.setExpectedRevision(expected.revision.toString());
  else if (expected.kind === 'no_stream') wrong.setExpectedNoStream(empty());
  else if (expected.kind === 'stream_exists') wrong.setExpectedStreamExists(empty());
  else wrong.setExpectedAny(empty());
  const response = new streamsPb.AppendResp();
  response.setWrongExpectedVersion(wrong);
  return response;
}

function success(revision: bigint | null, position: bigint | null): AppendResp {
  const result = new streamsPb.AppendResp.Success();
  if (revision === null) result.setNoStream(empty());
  else result.setCurrentRevision(revision.toString());
  if (position === null) result.setNoPosition(empty());
  else {
    const at = new streamsPb.AppendResp.Position();
    at.setCommitPosition(position.toString());
    at.setPreparePosition(position.toString());
    result.setPosition(at);
  }
  const response = new streamsPb.AppendResp();
  response.setSuccess(result);
  return response;
}

const missingOptions = () => ({
  code: status.INVALID_ARGUMENT,
  details: 'The first append message must hold the options',
});

export function appendHandler(log: EventLog, faults: Faults) {
  return (call: ServerReadableStream<AppendReq, AppendResp>, answer: sendUnaryData<AppendResp>): void => {
    let options: AppendOptions | undefined;
    const events: ProposedEvent[] = [];
    call.on('data', (request: AppendReq) => {
      const header = request.getOptions();
      const message = request.getProposedMessage();
      if (header) options = header;
      else if (message) events.push(proposed(message));
    });
    call.on('end', () => {
      void faults.delay().then(() => {
        const refusal = faults.takeAppendFault() ?? (options ? null : missingOptions());
        if (refusal || !options) {
          answer(refusal);
          return;
        }
        const expected = expectedOf(options);
        const outcome = log.append(textOf(options.getStreamIdentifier()), expected, events);
        const lost = outcome.ok ? faults.takeLostAnswer() : null;
        if (lost) answer(lost);
        else if (outcome.ok) answer(null, success(outcome.revision, outcome.position));
        else answer(null, wrongExpectedVersion(expected, outcome.current));
      });
    });
  };
}
