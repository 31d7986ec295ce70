import { earliest, type Detector, type Finding } from '../finding.ts';

// The value must be on the label's line: "Сменил пароль:" ending a line is followed by prose.
const LABELLED = /(?:password|passwd|pwd|пароль)[^\S\n]*[:=][^\S\n]*(\S{4,})/giu;
// Words that describe a password rather than being one ("password: forgot it", "пароль: неверный").
const NOT_A_PASSWORD = new Set(
  [
    "reset forgot forgotten changed change required incorrect wrong invalid expired doesn't does didn't",
    "isn't won't none empty hidden same please help what which where your mine this that lost unknown",
    'забыл забыла неверный неправильный неверен сбросил сбросила сбросить изменил изменила изменить',
    'поменял поменяла поменять какой такой пустой скрыт потерял потеряла помогите подскажите нужен',
  ]
    .join(' ')
    .split(' '),
);
// Already masked ("password: ****") or a working directory ("pwd: /home/ivan").
const MASKED = /^[*•·.xX_-]+$/;
const PATH = /^[/~]/;
const TRAILING_PUNCTUATION = /[.,;!?)"'»]+$/;

function labelled(text: string): Finding | null {
  for (const match of text.matchAll(LABELLED)) {
    const [whole, value = ''] = match;
    const bare = value.replace(TRAILING_PUNCTUATION, '').toLowerCase();
    if (NOT_A_PASSWORD.has(bare) || MASKED.test(value)) continue;
    if (PATH.test(value) && /^pwd/i.test(whole)) continue;
    const end = match.index + whole.length;
    return { start: end - value.length, end, secret: value };
  }
  return null;
}

// `login:password@host`, as in a connection string without a scheme. The pattern starts at the colon
// and looks back for the login: starting at every letter instead made this the slowest rule.
const CREDENTIALS = /:(?<=(?<![\p{L}\p{N}_.%+-])[\p{L}\p{N}_.%+-]{1,64}:)([^\s:@/]{3,128})@[\p{L}\p{N}-]/gu;

function credentials(text: string): Finding | null {
  const [match] = text.matchAll(CREDENTIALS);
  if (!match) return null;
  const [, value = ''] = match;
  const start = match.index + 1;
  return { start, end: start + value.length, secret: value };
}

const DETECTORS: readonly Detector[] = [labelled, credentials];

export function findPassword(text: string): Finding | null {
  return earliest(text, DETECTORS);
}
