import type { Reaction } from './reaction.ts';

/** Every reaction the service runs; later issues add theirs (push on publish, provider note on CSAT). */
export const allReactions: readonly Reaction[] = [];
