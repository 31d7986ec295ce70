import { LinkifyIt, type Match } from 'linkify-it';
import tlds from 'tlds' with { type: 'json' };
import { earliest, firstMatch, type Detector, type Finding } from './finding.ts';
import { latinReading } from './lookalike.ts';

// One instance: building it compiles a large pattern from ~1,400 TLDs. The default list knows only a
// handful of generic TLDs, so `.xyz`, `.app` and the other new ones would pass without the full list.
const linkify = new LinkifyIt({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true }).tlds(tlds);

const TLDS: ReadonlySet<string> = new Set(tlds);

// `г.Москва` (a one-letter Cyrillic abbreviation) and `1.legal` (a numbered list) glued to a word
// that happens to be a TLD are prose, not links. One Latin letter is kept: `x.com` is a real site.
const NOT_A_HOST = /^(?:\p{Script=Cyrillic}|\p{N}{1,2})\.[^./:@]+$/u;
// TLDs that are no word of English or Russian: the ones a link is shared with, which a sentence
// never starts with. Every other TLD (`next`, `now`, `how`, `app`, `online`, …) is a word too.
const LINK_TLDS: ReadonlySet<string> = new Set(
  'com org net ru su рф io xyz info biz uk ua kz cn jp eu tk pw onion'.split(' '),
);
// `end.Next`, `Hello.How`: a sentence glued to the next one, whose first word is capitalised and
// happens to be a TLD. People type a domain in lower case (or all in capitals), not like this.
const GLUED_SENTENCE = /^[\p{L}\p{N}-]+\.(\p{Lu}\p{Ll}+)$/u;

function proseNotHost(match: Match): boolean {
  if (match.schema !== '') return false;
  if (NOT_A_HOST.test(match.raw)) return true;
  const tld = GLUED_SENTENCE.exec(match.raw)?.[1];
  return tld !== undefined && !LINK_TLDS.has(tld.toLowerCase());
}

function linkifyLink(text: string): Finding | null {
  if (!linkify.test(text)) return null;
  const found = (linkify.match(text) ?? []).find((match: Match) => !proseNotHost(match));
  return found ? { start: found.index, end: found.lastIndex, secret: found.raw } : null;
}

/*
 * A dot written with spaces around it (`example . com`, `example .com`, `example. com`) or as a word
 * in another language (`example точка ru`, `example punto com`); `dot` and the bracketed forms are
 * already folded by normalise. Each pattern starts at the dot or the word, which the engine finds by
 * scanning for it, and looks back for the spaces; the TLD is checked first and the host read
 * backwards only for a TLD, so a sentence end costs one look and a set lookup.
 */
const SPACED_DOT = /(?<=[\p{L}\p{N}]([^\S\n]*))\.([^\S\n]*)(\p{L}{2,24})(?![\p{L}\p{N}_-])/gu;
const WORD_DOT =
  /(?<=[\p{L}\p{N}]([^\S\n]+))(?:точка|tochka|punto|punkt|ponto)[^\S\n]+(\p{L}{2,24})(?![\p{L}\p{N}_-])/giu;
const HOST_CHAR = /[\p{L}\p{N}-]/u;
const MAX_HOST = 63;
// How Russian speakers spell the common TLDs in Cyrillic.
const CYRILLIC_TLDS: ReadonlyMap<string, string> = new Map([
  ['ру', 'ru'],
  ['ком', 'com'],
  ['орг', 'org'],
]);
// A sentence that ends (`. `) or a `.NET` (` .`) next to a word: only TLDs no sentence starts with,
// in lower case.
const ONE_SIDED_TLDS: ReadonlySet<string> = new Set([...LINK_TLDS].filter((tld) => tld !== 'net'));
// Never a host: "use .net", "the .com era", "if cmd has a . in it".
const LITTLE_WORDS: ReadonlySet<string> = new Set(
  'a i an the this that my your our its his her their in on at of to for with and or from by is has use using via no not any every old new в на и с к по от из за'.split(
    ' ',
  ),
);
const hasLetter = /\p{L}/u;
const isLower = (word: string): boolean => word === word.toLowerCase();
const isUpper = (word: string): boolean => word === word.toUpperCase();
const isTitle = (word: string): boolean =>
  word.length > 1 && isUpper(word.charAt(0)) && isLower(word.slice(1));

type DotForm = 'both sides' | 'one side' | 'word';

/** The host right before `end`: letters, digits and hyphens, starting and ending with no hyphen. */
function hostBefore(text: string, end: number): string | null {
  let start = end;
  while (start > 0 && end - start < MAX_HOST && HOST_CHAR.test(text.charAt(start - 1))) start--;
  const host = text.slice(start, end).replace(/^-+/, '');
  return host === '' || host.endsWith('-') ? null : host;
}

function spacedDotIsLink(form: DotForm, written: string, tld: string, host: string): boolean {
  if (!hasLetter.test(host) || LITTLE_WORDS.has(host.toLowerCase())) return false;
  if (form === 'one side') return isLower(written) && ONE_SIDED_TLDS.has(tld);
  if (isLower(written) || (isUpper(written) && isUpper(host))) return true;
  // `example . Com`: capitalised like a new sentence, so only a TLD no sentence starts with.
  return form === 'both sides' && isTitle(written) && LINK_TLDS.has(tld);
}

/** A spaced or spelled-out dot between a host and a TLD, as a finding from the host to the TLD. */
function spacedDotAt(
  text: string,
  match: RegExpExecArray,
  form: DotForm,
  spaces: string,
  written: string,
): Finding | null {
  const lower = written.toLowerCase();
  const tld = CYRILLIC_TLDS.get(lower) ?? lower;
  if (!TLDS.has(tld)) return null;
  const host = hostBefore(text, match.index - spaces.length);
  if (host === null || !spacedDotIsLink(form, written, tld, host)) return null;
  return widened(text, match.index - spaces.length - host.length, match.index + match[0].length);
}

// The labels around the pair that decided (`www . example . com`, `example . co . uk`) and a path
// after it belong to the link too, so the snippet masks them. A few labels at most either way.
const LABEL_BEFORE = /[\p{L}\p{N}-]{1,63}[^\S\n]*\.[^\S\n]*$/u;
const LABEL_AFTER = /[^\S\n]*\.[^\S\n]*[\p{L}\p{N}-]{1,63}(?![\p{L}\p{N}])|[/:?#]\S*/uy;
const MAX_LABELS = 4;

function widened(text: string, start: number, end: number): Finding {
  let from = start;
  let to = end;
  for (let i = 0; i < MAX_LABELS; i++) {
    const label = LABEL_BEFORE.exec(text.slice(Math.max(0, from - MAX_HOST - 8), from));
    if (!label) break;
    from -= label[0].length;
  }
  for (let i = 0; i < MAX_LABELS; i++) {
    LABEL_AFTER.lastIndex = to;
    const label = LABEL_AFTER.exec(text);
    if (!label) break;
    to += label[0].length;
  }
  return { start: from, end: to, secret: text.slice(from, to) };
}

function dotLink(text: string): Finding | null {
  for (const match of text.matchAll(SPACED_DOT)) {
    const [, before = '', after = '', written = ''] = match;
    // `example.com`, no space at all, is linkify's.
    if (before === '' && after === '') continue;
    const form: DotForm = before !== '' && after !== '' ? 'both sides' : 'one side';
    const found = spacedDotAt(text, match, form, before, written);
    if (found) return found;
  }
  return null;
}

function dotWordLink(text: string): Finding | null {
  for (const match of text.matchAll(WORD_DOT)) {
    const [, before = '', written = ''] = match;
    const found = spacedDotAt(text, match, 'word', before, written);
    if (found) return found;
  }
  return null;
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
  dotLink,
  dotWordLink,
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
