import { earliest, firstMatch, type Detector, type Finding } from '../finding.ts';
import { base58CheckPayload } from './base58.ts';
import { hasWordsNear } from './near.ts';

const PEM_HEADER = /-{3,}\s*BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?\s*-{3,}/gi;
const PEM_END = /-{3,}\s*END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?\s*-{3,}/iy;
// Base64 body lines, and the `Proc-Type:`/`DEK-Info:` headers of an encrypted key.
const PEM_BODY = /(?:(?:Proc-Type|DEK-Info|Comment|Version):[^\n]*|[\sA-Za-z0-9+/=])*/y;

function matchAt(sticky: RegExp, text: string, at: number): string {
  sticky.lastIndex = at;
  return sticky.exec(text)?.[0] ?? '';
}

function pemKey(text: string): Finding | null {
  const header = firstMatch(text, PEM_HEADER);
  if (!header) return null;
  const body = matchAt(PEM_BODY, text, header.end);
  const footer = matchAt(PEM_END, text, header.end + body.length);
  const secret = body.replace(/\s+/g, '') || header.secret;
  return { start: header.start, end: header.end + body.length + footer.length, secret };
}

// 32 bytes in hex is what wallets export; a transaction hash has the same shape, so key words must
// be near.
const HEX_KEY = /(?<![\p{L}\p{N}_])(?:0x)?[0-9a-f]{64}(?![\p{L}\p{N}_])/giu;
const KEY_WORDS =
  /private[\s_-]*key|(?<!\p{L})priv|(?<![\p{L}\p{N}])pk(?![\p{L}])|secret|metamask|приватн|закрыт\p{L}*\s+ключ|секретн|метамаск/iu;
const KEY_WORDS_DISTANCE = 48;

function hexKey(text: string): Finding | null {
  const found = firstMatch(text, HEX_KEY, (match) =>
    hasWordsNear(text, match.index, match.index + match[0].length, KEY_WORDS, KEY_WORDS_DISTANCE),
  );
  return found && { ...found, secret: found.secret.toLowerCase().replace(/^0x/, '') };
}

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
// Wallet import format: version 0x80, 32 key bytes, then 0x01 when the public key is compressed.
const WIF = new RegExp(`(?<![\\p{L}\\p{N}])(?:5${BASE58}{50}|[KL]${BASE58}{51})(?![\\p{L}\\p{N}])`, 'gu');
const WIF_VERSION = 0x80;
const WIF_LENGTHS = new Set([33, 34]);

function wifKey(text: string): Finding | null {
  return firstMatch(text, WIF, ([candidate]) => {
    const payload = base58CheckPayload(candidate);
    return payload !== null && payload[0] === WIF_VERSION && WIF_LENGTHS.has(payload.length);
  });
}

// BIP32 extended private keys are 111 characters; a shorter run still leaks most of one.
const EXTENDED_KEY = new RegExp(
  `(?<![\\p{L}\\p{N}])[xtyzuvYZUV]prv${BASE58}{90,120}(?![\\p{L}\\p{N}])`,
  'gu',
);

const DETECTORS: readonly Detector[] = [pemKey, hexKey, wifKey, (text) => firstMatch(text, EXTENDED_KEY)];

export function findPrivateKey(text: string): Finding | null {
  return earliest(text, DETECTORS);
}
