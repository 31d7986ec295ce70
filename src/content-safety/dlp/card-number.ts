import type { Finding } from '../finding.ts';
import { hasWordsNear } from './near.ts';

const MIN_DIGITS = 12;
const MAX_DIGITS = 19;
// Groups of digits joined by single spaces or dashes, as cards are written.
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;
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
// Issuers' first digits: 2 (Mir, Mastercard 2-series), 3 (Amex, JCB, Diners), 4, 5, 6.
const CARD_FIRST_DIGIT = /^[2-6]/;

interface Group {
  readonly digits: string;
  readonly start: number;
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
  for (const part of run.matchAll(/\d+/g)) groups.push({ digits: part[0], start: at + part.index });
  const first = groups[0];
  if (first && glued(text[first.start - 1], text[first.start - 2])) groups.shift();
  const last = groups.at(-1);
  if (last) {
    const after = last.start + last.digits.length;
    if (glued(text[after], text[after + 1])) groups.pop();
  }
  return groups;
}

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

function looksLikeCard(text: string, window: readonly Group[], digits: string): boolean {
  const [first] = window;
  const last = window.at(-1);
  if (!first || !last || !luhnValid(digits)) return false;
  if (hasWordsNear(text, first.start, endOf(last), CARD_WORDS, CARD_WORDS_DISTANCE)) return true;
  if (!CARD_FIRST_DIGIT.test(digits) || !cardShaped(window)) return false;
  if (window.length === 1 && digits.length === 13) {
    const value = Number(digits);
    if (value >= TIMESTAMP_MS.from && value < TIMESTAMP_MS.to) return false;
  }
  const before = text.slice(Math.max(0, first.start - OTHER_NUMBER_DISTANCE), first.start);
  return !OTHER_NUMBER_WORDS.test(before) && !OTHER_NUMBER_MARK.test(before);
}

/** The longest card among the windows of whole groups starting at `from`. */
function cardFrom(text: string, groups: readonly Group[], from: number): Finding | null {
  const first = groups[from];
  let found: Finding | null = null;
  let digits = '';
  for (let to = from; first && to < groups.length; to++) {
    const last = groups[to];
    digits += last?.digits ?? '';
    if (!last || digits.length > MAX_DIGITS) break;
    if (digits.length >= MIN_DIGITS && looksLikeCard(text, groups.slice(from, to + 1), digits)) {
      found = { start: first.start, end: endOf(last), secret: digits };
    }
  }
  return found;
}

/** 12 to 19 digits passing the Luhn check, with the shape or the words of a card. */
export function findCardNumber(text: string): Finding | null {
  for (const run of text.matchAll(DIGIT_RUN)) {
    if (run[0].replace(/\D/g, '').length < MIN_DIGITS) continue;
    const groups = groupsOf(text, run[0], run.index);
    // Windows of whole groups: a card followed by "12 26" (its expiry) is still found.
    for (let from = 0; from < groups.length; from++) {
      const found = cardFrom(text, groups, from);
      if (found) return found;
    }
  }
  return null;
}
