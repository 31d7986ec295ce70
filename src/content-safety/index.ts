import { findApiKey } from './dlp/api-key.ts';
import { findCardNumber } from './dlp/card-number.ts';
import { findPassword } from './dlp/password.ts';
import { findPrivateKey } from './dlp/private-key.ts';
import { findSeedPhrase } from './dlp/seed-phrase.ts';
import type { Detector } from './finding.ts';
import { findLink } from './links.ts';
import { normalise } from './normalise.ts';
import { keyedHash, redactedSnippet } from './redact.ts';

export type SafetyKind = 'link' | 'seed_phrase' | 'card_number' | 'private_key' | 'api_key' | 'password';

export interface SafetyHit {
  readonly kind: SafetyKind;
  /** At most about 40 characters around the hit, with every character of the secret replaced (e.g. by '•'); never the secret itself. For a link, the link's characters are replaced too. */
  readonly snippet: string;
  /** HMAC-SHA256 (hex) of the matched secret as found in the normalised text, keyed with `hashKey`: lets moderators see that two rejections carried the same secret without storing it. A plain hash would not do: card numbers and short passwords are cheap to brute-force from a plain SHA-256. */
  readonly hash: string;
}

export interface SafetyOptions {
  readonly hashKey: string;
}

// The order of CONTENT-SAFETY.md: links first, then the DLP kinds as its table lists them.
const RULES: readonly (readonly [SafetyKind, Detector])[] = [
  ['link', findLink],
  ['seed_phrase', findSeedPhrase],
  ['card_number', findCardNumber],
  ['private_key', findPrivateKey],
  ['api_key', findApiKey],
  ['password', findPassword],
];

/** Null when the text may be stored; else the first rule it breaks, in the order of CONTENT-SAFETY.md (links first, then DLP kinds). Pure and synchronous; never logs or throws on any input string. */
export function checkComment(text: string, options: SafetyOptions): SafetyHit | null {
  const normalised = normalise(text);
  for (const [kind, find] of RULES) {
    const finding = find(normalised);
    if (finding) {
      return {
        kind,
        snippet: redactedSnippet(normalised, finding),
        hash: keyedHash(options.hashKey, finding.secret),
      };
    }
  }
  return null;
}
