/**
 * The double's `Streams.Read`: reads of one stream or of `$all` (with its server-side filter), and
 * catch-up subscriptions to `$all`, which subscription.ts serves.
 */
import { type ServerWritableStream, status } from '@grpc/grpc-js';
import type { Faults } from './faults.ts';
import type { EventLog, StoredEvent } from './log.ts';
import { allFrom, eventMessage, filterOf, streamFrom, streamNotFoundMessage, textOf } from './messages.ts';
import { type ReadReq, type ReadResp, streamsPb } from './protocol.ts';
import { serveSubscription } from './subscription.ts';

export function readHandler(log: EventLog, faults: Faults) {
  return (call: ServerWritableStream<ReadReq, ReadResp>): void => {
    void (async () => {
      await faults.delay();
      const options = call.request.getOptions();
      if (!options) {
        call.emit('error', { code: status.INVALID_ARGUMENT, details: 'A read needs its options' });
        return;
      }
      if (options.hasSubscription()) {
        const all = options.getAll();
        if (!all) {
          call.emit('error', {
            code: status.UNIMPLEMENTED,
            details: 'The KurrentDB double subscribes to $all only',
          });
          return;
        }
        serveSubscription(call, log, faults, options, all);
        return;
      }
      const read = {
        forwards: options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.FORWARDS,
        maxCount: options.hasCount() ? BigInt(options.getCount()) : BigInt(Number.MAX_SAFE_INTEGER),
      };
      let events: StoredEvent[];
      const stream = options.getStream();
      const all = options.getAll();
      if (stream) {
        const name = textOf(stream.getStreamIdentifier());
        const found = log.readStream(name, { ...read, from: streamFrom(stream) });
        if (!found) {
          call.write(streamNotFoundMessage(name));
          call.end();
          return;
        }
        events = found;
      } else if (all) {
        events = log.readAll({ ...read, from: allFrom(all) }, filterOf(options));
      } else {
        call.emit('error', { code: status.INVALID_ARGUMENT, details: 'A read names a stream or $all' });
        return;
      }
      for (const event of events) call.write(eventMessage(event));
      call.end();
    })();
  };
}
