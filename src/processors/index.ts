import { type BroadcastPort, postPushesProcessor } from './post-pushes.ts';
import type { Processor } from './processor.ts';

/** What the processors' side effects go through; the wiring fills it. */
export interface ProcessorPorts {
  /** Queues a push to many (src/push's broadcaster). */
  readonly broadcast: BroadcastPort;
}

/** Every processor the service runs: the push of a post published with `notify`. */
export const allProcessors = (ports: ProcessorPorts): readonly Processor[] => [
  postPushesProcessor(ports.broadcast),
];
