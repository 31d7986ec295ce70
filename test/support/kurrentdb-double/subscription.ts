/**
 * A catch-up subscription to `$all` on the double: confirmation, the filtered log after the start
 * position, a checkpoint and "caught up" at the head, then live events; "fell behind" and a new catch-up
 * when the client reads slower than the log grows. It reads the log by index, so nothing is skipped or
 * sent twice within one subscription; a drop injected by the faults ends it with UNAVAILABLE.
 */
import { randomUUID } from 'node:crypto';
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { Faults } from './faults.ts';
import type { EventLog } from './log.ts';
import {
  allFrom,
  checkpointInterval,
  checkpointMessage,
  confirmationMessage,
  eventMessage,
  filterOf,
  modeMessage,
} from './messages.ts';
import type { AllOptions, ReadOptions, ReadReq, ReadResp } from './protocol.ts';

/** Live events a subscription may be behind before it falls back to catching up. */
const LIVE_BACKLOG = 1_000;
/** Events scanned between two yields to the event loop, so one subscription never starves the rest. */
const SCAN_SLICE = 256;

export function serveSubscription(
  call: ServerWritableStream<ReadReq, ReadResp>,
  log: EventLog,
  faults: Faults,
  options: ReadOptions,
  all: AllOptions,
): void {
  const keep = filterOf(options);
  const filtered = options.hasFilter();
  const checkpointEvery = checkpointInterval(options);
  const from = allFrom(all);
  let cursor = from === 'start' ? 0 : from === 'end' ? log.length : log.indexAfter(from);
  let open = true;
  let dropIn: number | null = null;
  let wake: (() => void) | undefined;
  const poke = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const stopListening = log.onAppend(poke);
  const forget = faults.watch({
    dropAfter(events) {
      dropIn = events;
      poke();
    },
  });
  const close = () => {
    open = false;
    stopListening();
    forget();
    poke();
  };
  call.on('cancelled', close);
  call.on('close', close);
  call.on('error', close);

  const idle = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  /** Honours the client's flow control: waits while the transport's buffer is full. */
  const send = async (message: ReadResp) => {
    if (call.write(message)) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
      call.once('drain', poke);
    });
  };
  const dropNow = () => dropIn === 0;

  async function run(): Promise<void> {
    await send(confirmationMessage(randomUUID()));
    let live = false;
    let sinceCheckpoint = 0;
    let scanned = 0;
    while (open) {
      if (dropNow()) {
        call.emit('error', faults.dropped());
        close();
        return;
      }
      const head = log.length;
      if (cursor >= head) {
        if (!live) {
          const last = log.at(head - 1)?.position ?? null;
          if (filtered && last !== null) await send(checkpointMessage(last));
          await send(modeMessage('caughtUp', last));
          live = true;
        }
        await idle();
        continue;
      }
      if (live && head - cursor > LIVE_BACKLOG) {
        live = false;
        await send(modeMessage('fellBehind', log.at(cursor - 1)?.position ?? null));
      }
      const event = log.at(cursor);
      cursor++;
      if (!event) continue;
      if (keep(event)) {
        await send(eventMessage(event));
        if (dropIn !== null) dropIn--;
        sinceCheckpoint = 0;
      } else if (filtered && ++sinceCheckpoint >= checkpointEvery) {
        await send(checkpointMessage(event.position));
        sinceCheckpoint = 0;
      }
      if (++scanned % SCAN_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  run().catch(() => {
    // The call went away while writing: the client has its own view of that.
    close();
  });
}
