import type { Finding } from '../finding.ts';
import { hasWordsNear } from './near.ts';

const MIN_DIGITS = 12;
const MAX_DIGITS = 19;
/*
 * Groups of digits joined by any separator people put in a card number to get it past a filter:
 * up to three spaces or line breaks, or one dash, dot, slash, backslash, underscore, bar or middle
 * dot with up to three spaces on either side, in any mix (`4111.1111-1111 1111`). A separator never
 * holds a digit, so each group is read once: the pattern is linear in the text.
 */
const SEPARATOR = String.raw`(?:\s{0,3}[-‐‑‒–—./\\_|·•]\s{0,3}|\s{1,3})`;
const DIGIT_RUN = new RegExp(String.raw`\d+(?:${SEPARATOR}\d+)*`, 'g');
// A bare dot between two groups is a decimal point or a version (`0.4111…`, `10.4111…`): a card may
// run through it (`4111.1111.1111.1111`) but not start or end at it.
const DECIMAL_POINT = '.';
const CARD_WORDS =
  /card|visa|master\s*card|maestro|amex|american\s+express|discover|unionpay|jcb|cvv|cvc|exp(?:iry|ires|iration)?(?!\p{L})|valid\s+thru|карт|виза|мастеркард|маэстро|(?<!\p{L})мир(?!\p{L})|срок\s+действия/iu;
const CARD_WORDS_DISTANCE = 40;
// Numbers people give that are not cards: order, tracking, tax and phone numbers.
const OTHER_NUMBER_WORDS =
  /order|заказ|трек|track|invoice|сч[её]т|ticket|тикет|(?<!\p{L})id(?!\p{L})|артикул|sku|(?<!\p{L})инн|снилс|огрн|кпп|(?<!\p{L})бик|phone|(?<!\p{L})tel|(?<!\p{L})тел|whatsapp|viber|посылк|отправлени|накладн|(?<!\p{L})awb|(?<!\p{L})ref|transaction|txn|транзакц|договор|contract|полис|policy/iu;
const OTHER_NUMBER_DISTANCE = 24;
// Right before the number: "#123…", "No. 123…" (NFKC turns "№" into "No"), "+7…" (a phone).
const OTHER_NUMBER_MARK = /(?:#|(?<!\p{L})no\.?|\+)\s*$/iu;
// A bare 13-digit number in this range reads as a millisecond timestamp (2000 to 2040).
const TIMESTAMP_MS = { from: 946_684_800_000, to: 2_208_988_800_000 };

/*
 * Issuers' number ranges and the lengths they issue (ISO/IEC 7812 as the networks publish them):
 * Mir 2200–2204 (16–19), Mastercard 2221–2720 and 51–55 (16), Amex 34/37 (15), Diners 300–305,
 * 3095, 36, 38–39 (14–19), JCB 3528–3589 (16–19), Visa 4 (13, 16, 19), Maestro 50 and 56–69
 * (12–19), Discover and UnionPay inside 6 (16–19). A number in none of these ranges is no card (a
 * year like 2024…, 31…, 0…), except in the ranges of smaller or domestic schemes (1, 7, 8, 9): a
 * card there only when card words say so.
 */
const ISSUERS: readonly (readonly [RegExp, readonly number[]])[] = [
  [/^220[0-4]/, [16, 17, 18, 19]],
  [/^(?:222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, [16]],
  [/^3[47]/, [15]],
  [/^(?:30[0-5]|3095|3[689])/, [14, 15, 16, 17, 18, 19]],
  [/^(?:352[89]|35[3-8]\d)/, [16, 17, 18, 19]],
  [/^4/, [13, 16, 19]],
  [/^5[1-5]/, [16]],
  [/^(?:50|5[6-9]|6)/, [12, 13, 14, 15, 16, 17, 18, 19]],
];
const UNKNOWN_RANGES = /^[1789]/;

/** The lengths issued in the range these digits start in; 'unknown' for a range of smaller schemes, null for none. */
function issuerLengths(digits: string): readonly number[] | 'unknown' | null {
  const issuer = ISSUERS.find(([range]) => range.test(digits));
  if (issuer) return issuer[1];
  return UNKNOWN_RANGES.test(digits) ? 'unknown' : null;
}

/** Whether an issuer gives out numbers like these digits: true, false, or undefined when unknown. */
export function issuedLength(digits: string): boolean | undefined {
  const lengths = issuerLengths(digits);
  return lengths === 'unknown' ? undefined : (lengths?.includes(digits.length) ?? false);
}

interface Group {
  readonly digits: string;
  readonly start: number;
  /** What joins this group to the one before it (empty for the first group of a run). */
  readonly separator: string;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const isWordChar = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}_]/u.test(char);
const isDigit = (char: string | undefined): boolean => char !== undefined && /\p{N}/u.test(char);

/**
 * A group stuck to other text is part of something else: a hex string, a decimal, a date, an
 * identifier like `xoxb-123…` or `INV-2024-…`. `outer` is the character next to the group, `beyond`
 * the one after it.
 */
function glued(outer: string | undefined, beyond: string | undefined): boolean {
  if (isWordChar(outer)) return true;
  if (outer === '-' || outer === '_') return isWordChar(beyond);
  if (outer === '.' || outer === ',' || outer === '/') return isDigit(beyond);
  return false;
}

function groupsOf(text: string, run: string, at: number): Group[] {
  const groups: Group[] = [];
  let previousEnd = 0;
  for (const part of run.matchAll(/\d+/g)) {
    groups.push({ digits: part[0], start: at + part.index, separator: run.slice(previousEnd, part.index) });
    previousEnd = part.index + part[0].length;
  }
  const first = groups[0];
  if (first && glued(text[first.start - 1], text[first.start - 2])) groups.shift();
  const last = groups.at(-1);
  if (last) {
    const after = last.start + last.digits.length;
    if (glued(text[after], text[after + 1])) groups.pop();
  }
  return groups;
}

/** Whether a card may start at group `i` (or end just before it): not inside a decimal number. */
const boundaryAt = (groups: readonly Group[], i: number): boolean => groups[i]?.separator !== DECIMAL_POINT;

// 4-4-4-4, 4-6-5 (Amex), 4-6-4 (Diners), 4-4-4-4-3: a phone number or a list of numbers is not.
function cardShaped(groups: readonly Group[]): boolean {
  if (groups.length === 1) return true;
  return groups.every((group, i) => {
    const length = group.digits.length;
    if (i === 0) return length === 4;
    return i === groups.length - 1 ? length <= 6 : length >= 3 && length <= 6;
  });
}

const endOf = (group: Group): number => group.start + group.digits.length;

/**
 * Whether a Luhn-valid window of a length its issuer gives out is a card: `issued` is undefined
 * for a range of smaller schemes, which only card words make a card.
 */
function looksLikeCard(
  text: string,
  window: readonly Group[],
  digits: string,
  issued: true | undefined,
): boolean {
  const [first] = window;
  const last = window.at(-1);
  if (!first || !last) return false;
  if (hasWordsNear(text, first.start, endOf(last), CARD_WORDS, CARD_WORDS_DISTANCE)) return true;
  if (issued === undefined || !cardShaped(window)) return false;
  if (window.length === 1 && digits.length === 13) {
    const value = Number(digits);
    if (value >= TIMESTAMP_MS.from && value < TIMESTAMP_MS.to) return false;
  }
  const before = text.slice(Math.max(0, first.start - OTHER_NUMBER_DISTANCE), first.start);
  return !OTHER_NUMBER_WORDS.test(before) && !OTHER_NUMBER_MARK.test(before);
}

/** Whether a card shaped without card words (see `cardShaped`) can start with this group. */
const startsShapedCard = ({ digits }: Group): boolean =>
  digits.length === 4 || (digits.length >= MIN_DIGITS && digits.length <= MAX_DIGITS);

/** The longest card among the windows of whole groups starting at `from`. */
function cardFrom(text: string, groups: readonly Group[], from: number, cardWords: boolean): Finding | null {
  const first = groups[from];
  if (!first || !boundaryAt(groups, from) || (!cardWords && !startsShapedCard(first))) return null;
  let found: Finding | null = null;
  let digits = '';
  // The issuer follows from the first digits, the same for every window from here: found once.
  let lengths: readonly number[] | 'unknown' | null | undefined;
  for (let to = from; to < groups.length; to++) {
    const last = groups[to];
    digits += last?.digits ?? '';
    if (!last || digits.length > MAX_DIGITS) break;
    if (digits.length < MIN_DIGITS) continue;
    lengths ??= issuerLengths(digits);
    if (lengths === null) return null;
    // The cheap tests first: a run of 2,000 digits and separators tries a window at every group.
    if (lengths !== 'unknown' && !lengths.includes(digits.length)) continue;
    if (!boundaryAt(groups, to + 1) || !luhnValid(digits)) continue;
    const issued = lengths === 'unknown' ? undefined : true;
    if (looksLikeCard(text, groups.slice(from, to + 1), digits, issued)) {
      found = { start: first.start, end: endOf(last), secret: digits };
    }
  }
  return found;
}

/** 12 to 19 digits passing the Luhn check, of a length an issuer gives out, with the shape or the words of a card. */
export function findCardNumber(text: string): Finding | null {
  for (const run of text.matchAll(DIGIT_RUN)) {
    if (run[0].replace(/\D/g, '').length < MIN_DIGITS) continue;
    const groups = groupsOf(text, run[0], run.index);
    // No card words near the run means none near any window in it (a run holds no words), so only
    // windows shaped like a card need trying: 2,000 characters of `1 2 3 …` try none.
    const end = run.index + run[0].length;
    const cardWords = hasWordsNear(text, run.index, end, CARD_WORDS, CARD_WORDS_DISTANCE);
    // Windows of whole groups: a card followed by "12 26" (its expiry) is still found.
    for (let from = 0; from < groups.length; from++) {
      const found = cardFrom(text, groups, from, cardWords);
      if (found) return found;
    }
  }
  return null;
}
