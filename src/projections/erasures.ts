import type { RecordedEvent } from '../events/envelope.ts';
import { PRIVACY_CATEGORY, privacyCodec } from '../events/privacy.ts';

/** What a projection that holds users' rows adds to its categories: it hears erasures (decision 048). */
export const ERASURES = PRIVACY_CATEGORY;

/**
 * Applies a batch in runs split where the log erased users: `apply` takes each run of other events, and
 * `erase` the users erased between them, in log order. So a batch has the effect of its events one by one:
 * what a user did before an erasure is forgotten with it, what the same host id does after is a new user's.
 */
export async function applyAroundErasures(
  events: readonly RecordedEvent[],
  apply: (run: readonly RecordedEvent[]) => Promise<void>,
  erase: (userIds: readonly string[]) => Promise<void>,
): Promise<void> {
  let run: RecordedEvent[] = [];
  let erased: string[] = [];
  for (const event of events) {
    if (event.type === 'userErased') {
      if (run.length > 0) await apply(run);
      run = [];
      erased.push(privacyCodec.parse(event).data.userId);
      continue;
    }
    if (erased.length > 0) await erase(erased);
    erased = [];
    run.push(event);
  }
  if (run.length > 0) await apply(run);
  if (erased.length > 0) await erase(erased);
}
