import { earliest, firstMatch, type Detector, type Finding } from '../finding.ts';

// Issuers' documented shapes; each prefix is distinctive enough that no key words are needed.
const SHAPES: readonly RegExp[] = [
  // AWS access key ids
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  // GitHub personal, OAuth, app, user-to-server and refresh tokens; fine-grained tokens
  /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g,
  // Google API keys
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
  // Slack bot, user, app-level and refresh tokens
  /(?<![A-Za-z0-9])xox[abprs]-[0-9A-Za-z-]{10,}/g,
  // Stripe live secret and restricted keys
  /(?<![A-Za-z0-9])[sr]k_live_[0-9A-Za-z]{10,}/g,
  // Telegram bot tokens: the bot's id, a colon, 35 characters
  /(?<![\p{L}\p{N}_])\d{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/gu,
  // JWTs: two base64url JSON objects (`{"` encodes as `eyJ`) and a signature
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
];

const DETECTORS: readonly Detector[] = SHAPES.map((shape) => (text: string) => firstMatch(text, shape));

export function findApiKey(text: string): Finding | null {
  return earliest(text, DETECTORS);
}
