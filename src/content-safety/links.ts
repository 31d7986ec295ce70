import { LinkifyIt, type Match } from 'linkify-it';
import tlds from 'tlds' with { type: 'json' };
import { earliest, firstMatch, type Detector, type Finding } from './finding.ts';
import { latinReading } from './lookalike.ts';

// One instance: building it compiles a large pattern from ~1,400 TLDs. The default list knows only a
// handful of generic TLDs, so `.xyz`, `.app` and the other new ones would pass without the full list.
const linkify = new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true }).tlds(tlds);

// `г.Москва` (a one-letter Cyrillic abbreviation) and `1.legal` (a numbered list) glued to a word
// that happens to be a TLD are prose, not links. One Latin letter is kept: `x.com` is a real site.
const NOT_A_HOST = /^(?:\p{Script=Cyrillic}|\p{N}{1,2})\.[^./:@]+$/u;

function linkifyLink(text: string): Finding | null {
  if (!linkify.test(text)) return null;
  const found = (linkify.match(text) ?? []).find(
    (match: Match) => !(match.schema === '' && NOT_A_HOST.test(match.raw)),
  );
  return found ? { start: found.index, end: found.lastIndex, secret: found.raw } : null;
}

// Schemes that open something when tapped. Most are words too ("data: 5 rows", "Tel: +44…"), so
// only a scheme with no space after its colon counts, or one followed by `//`.
const SCHEME =
  /(?<![\p{L}\p{N}+.-])(?:https?|s?ftps?|wss?|tg|mailto|javascript|vbscript|data|file|magnet|skype|viber|whatsapp|intent|market|itms(?:-apps|-services)?|irc|xmpp|sms|tel|callto|bitcoin|ethereum|ton):(?:\s*\/\/|[^\s:])[^\s]*/giu;
const TELEGRAM = /(?<![\p{L}\p{N}_.-])(?:t|telegram)\.(?:me|dog)\/[^\s]*/giu;
const PROTOCOL_RELATIVE =
  /(?<![\p{L}\p{N}_:/])\/\/(?:localhost|[\p{L}\p{N}][\p{L}\p{N}-]*(?:\.[\p{L}\p{N}-]+)+)[^\s]*/giu;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\p{L}\\p{N}.])(?:${OCTET}\\.){3}${OCTET}(?!\\p{N}|\\.\\p{N})`, 'gu');
const PUNYCODE = /(?<![\p{L}\p{N}-])xn--[a-z0-9-]+(?:\.[\p{L}\p{N}-]+)*/giu;
// Words with a dot in them, found by white space first: a host pattern tried at every letter of
// every word cost more than all the other link rules together.
const WORD_WITH_DOT = /(?<!\S)[^\s.]*\.\S*/g;
const DOTTED = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const NON_ASCII = /[^\p{ASCII}]/u;

function lookalikeHost(text: string): Finding | null {
  if (!NON_ASCII.test(text)) return null;
  for (const word of text.matchAll(WORD_WITH_DOT)) {
    if (!NON_ASCII.test(word[0])) continue;
    for (const host of word[0].matchAll(DOTTED)) {
      const latin = latinReading(host[0]);
      if (latin !== null && linkify.test(latin)) {
        const start = word.index + host.index;
        return { start, end: start + host[0].length, secret: host[0] };
      }
    }
  }
  return null;
}

const DETECTORS: readonly Detector[] = [
  linkifyLink,
  (text) => firstMatch(text, SCHEME),
  (text) => firstMatch(text, TELEGRAM),
  (text) => firstMatch(text, PROTOCOL_RELATIVE),
  (text) => firstMatch(text, IPV4),
  (text) => firstMatch(text, PUNYCODE),
  lookalikeHost,
];

/** The first link in the (normalised) text, by any of the link rules. */
export function findLink(text: string): Finding | null {
  return earliest(text, DETECTORS);
}
