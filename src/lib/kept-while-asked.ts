/**
 * lru-cache settings for caches keyed on change stamps (decision 022): an entry that polls keep asking
 * for never expires (so a steady poll never reads again), and one nobody asks for (an old version, a
 * user who left) ages out after a minute instead of waiting for the size limit.
 */
export const keptWhileAsked = { ttl: 60_000, updateAgeOnGet: true } as const;
