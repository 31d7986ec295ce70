import type { Processor } from './processor.ts';

/** Every processor the service runs: none yet (a push on publish and a provider note on CSAT will be). */
export const allProcessors: readonly Processor[] = [];
