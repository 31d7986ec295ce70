import type { Processor } from './processor.ts';

/** Every processor the service runs; later issues add theirs (push on publish, provider note on CSAT). */
export const allProcessors: readonly Processor[] = [];
