import { earliest, firstMatch, type Detector, type Finding } from '../finding.ts';
import { hasWordsNear } from './near.ts';

/*
 * Issuers' documented key shapes: a prefix distinctive enough that no key words are needed, the
 * body's alphabet, and the lengths of body the issuer gives out. Each shape is matched twice: whole
 * (any length in `range`, which allows for the issuer lengthening its keys), and split by white space
 * into pieces (`AKIA IOSF ODNN 7EXA MPLE`), where only the issued `lengths` count, since nothing else
 * says where a split key ends and the next word begins.
 */
interface Shape {
  /** Source of the prefix pattern. */
  readonly prefix: string;
  /** Source of one body character, a character class. */
  readonly body: string;
  /** Body lengths the issuer gives out. */
  readonly lengths: readonly number[];
  /** Body lengths accepted in one piece; the issued lengths when absent. */
  readonly range?: readonly [number, number];
  /** Characters that may not stand right before the prefix. */
  readonly before?: string;
  /** What the body must hold besides its shape, e.g. OpenAI's `T3BlbkFJ`. */
  readonly holds?: RegExp;
}

const ALNUM = '[A-Za-z0-9]';
const URL_SAFE = '[A-Za-z0-9_-]';

const SHAPES: readonly Shape[] = [
  // AWS access key ids (AKIA), temporary ones (ASIA), STS bearer tokens (ABIA), context credentials (ACCA)
  { prefix: '(?:AKIA|ASIA|ABIA|ACCA)', body: '[A-Z0-9]', lengths: [16] },
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens: 36 today, may grow
  { prefix: 'gh[pousr]_', body: ALNUM, lengths: [36], range: [36, 251] },
  // GitHub fine-grained personal tokens: 22 + `_` + 59
  { prefix: 'github_pat_', body: '[A-Za-z0-9_]', lengths: [82], range: [82, 244], before: '[A-Za-z0-9_]' },
  // Google API keys
  { prefix: 'AIza', body: URL_SAFE, lengths: [35], before: '[A-Za-z0-9_-]' },
  // Stripe live secret and restricted keys: 24 characters (older keys) or 99
  { prefix: '[sr]k_live_', body: ALNUM, lengths: [99, 24], range: [24, 247] },
  // OpenAI: the older keys, 20 + `T3BlbkFJ` (base64 of "OpenAI") + 20
  { prefix: 'sk-', body: ALNUM, lengths: [48], before: '[A-Za-z0-9_-]', holds: /^.{20}T3BlbkFJ/ },
  // OpenAI project, service-account and admin keys: 74 + `T3BlbkFJ` + 74, or 58 + it + 58
  {
    prefix: 'sk-(?:proj|svcacct|admin|None)-',
    body: URL_SAFE,
    lengths: [156, 124],
    range: [40, 250],
    before: '[A-Za-z0-9_-]',
  },
  // Anthropic API and admin keys (93 + `AA`), and OAuth tokens
  {
    prefix: 'sk-ant-[a-z]{3,5}\\d{2}-',
    body: URL_SAFE,
    lengths: [95],
    range: [40, 250],
    before: '[A-Za-z0-9_-]',
  },
  // GitLab personal access tokens: 20 characters (newer ones are longer)
  { prefix: 'glpat-', body: URL_SAFE, lengths: [20], range: [20, 100] },
  // npm access tokens
  { prefix: 'npm_', body: ALNUM, lengths: [36] },
  // Hugging Face access tokens: letters only
  { prefix: 'hf_', body: '[A-Za-z]', lengths: [34] },
  // Groq and Perplexity API keys
  { prefix: 'gsk_', body: ALNUM, lengths: [52] },
  { prefix: 'pplx-', body: ALNUM, lengths: [48] },
  // DigitalOcean personal, OAuth and refresh tokens
  { prefix: 'do[opr]_v1_', body: '[a-f0-9]', lengths: [64] },
  // Shopify admin, custom-app, partner-app tokens and shared secrets
  { prefix: 'shp(?:at|ca|pa|ss)_', body: '[a-fA-F0-9]', lengths: [32] },
  // PyPI upload tokens: a macaroon whose first bytes name pypi.org; no fixed length, so never split
  { prefix: 'pypi-AgEIcHlwaS5vcmc', body: URL_SAFE, lengths: [], range: [50, 300] },
];

// Shapes with more than one part, matched whole only.
const COMPOUND: readonly RegExp[] = [
  // Slack bot, user, app, refresh, legacy and configuration tokens (`xoxe.xoxp-…` included)
  /(?<![A-Za-z0-9])xox[abeoprs]-[0-9A-Za-z-]{10,}/g,
  // Slack app-level tokens
  /(?<![A-Za-z0-9])xapp-\d-[A-Za-z0-9]{8,}-\d{8,}-[A-Za-z0-9]{32,}/g,
  // SendGrid API keys
  /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  // Discord bot tokens: the bot's id in base64, a timestamp, an HMAC
  /(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g,
  // Telegram bot tokens: the bot's id, a colon, 35 characters
  /(?<![\p{L}\p{N}_])\d{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/gu,
  // JWTs: two base64url JSON objects (`{"` encodes as `eyJ`) and a signature
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
];

// Up to two white-space characters (a line break too) between any two characters of a split key. A
// white-space character is never a body character, so each step has one way to match: linear.
const GAP = '\\s{0,2}';
const WHITE_SPACE = /\s/g;

const wholePattern = (shape: Shape): RegExp => {
  const [min, max] = shape.range ?? [Math.min(...shape.lengths), Math.max(...shape.lengths)];
  const before = shape.before ?? '[A-Za-z0-9]';
  return new RegExp(`(?<!${before})${shape.prefix}${shape.body}{${min},${max}}(?!${shape.body})`, 'g');
};

const splitPattern = (shape: Shape): RegExp | null => {
  if (shape.lengths.length === 0) return null;
  const before = shape.before ?? '[A-Za-z0-9]';
  const bodies = shape.lengths.map((length) => `(?:${GAP}${shape.body}){${length}}`).join('|');
  return new RegExp(`(?<!${before})${shape.prefix}(?:${bodies})(?!${shape.body})`, 'g');
};

/** Each of upper case, lower case and digits that the alphabet has must appear in a split key. */
function classesOf(body: string): RegExp[] {
  const alphabet = new RegExp(body);
  return [/[A-Z]/, /[a-z]/, /\d/].filter((kind) =>
    ['A', 'a', '0'].some((sample) => kind.test(sample) && alphabet.test(sample)),
  );
}

/*
 * A split key is told from a prefix followed by prose ("ghp_ tokens expire after 90 days") by its
 * pieces and by looking random. Pieces: every one between the first and the last has four characters
 * or more, where prose has "a", "in", "the", "90". Random: every character class its alphabet has
 * must be in it. A real 36-character GitHub body lacks one with a chance of 0.2 %; an AWS id (16 of
 * 32 characters, 6 of them digits) lacks a digit with a chance of 4 %, and then it is missed when
 * split, found when whole.
 */
const MIN_PIECE = 4;
const evenPieces = (key: string): boolean =>
  key
    .split(/\s+/)
    .slice(1, -1)
    .every((piece) => piece.length >= MIN_PIECE);

function shapeDetector(shape: Shape): Detector {
  const whole = wholePattern(shape);
  const split = splitPattern(shape);
  const classes = classesOf(shape.body);
  const prefix = new RegExp(`^${shape.prefix}`);
  const holds = (key: string): boolean =>
    shape.holds === undefined || shape.holds.test(key.replace(prefix, ''));
  return (text) => {
    const found = earliest(text, [
      (t) => firstMatch(t, whole, ([key]) => holds(key)),
      (t) =>
        split === null
          ? null
          : firstMatch(t, split, ([key]) => {
              const joined = key.replace(WHITE_SPACE, '');
              return (
                holds(joined) &&
                evenPieces(key) &&
                classes.every((kind) => kind.test(joined.replace(prefix, '')))
              );
            }),
    ]);
    return found && { ...found, secret: found.secret.replace(WHITE_SPACE, '') };
  };
}

/*
 * AWS secret access keys: 40 characters of base64 with nothing of their own to recognise them by.
 * Found after a label naming them (`aws_secret_access_key = …`, `SecretAccessKey: …`, split too),
 * right after an access key id, or whole with AWS or secret words near. Every class of upper case,
 * lower case and digits must be in it: a git commit or a request id (40 hex digits) has no capitals.
 */
const SECRET_BODY = '[A-Za-z0-9/+]';
const SECRET_VALUE = `((?:${GAP}${SECRET_BODY}){40})(?![A-Za-z0-9/+=])`;
const SECRET_LABEL = '(?:aws[\\s_-]*)?secret[\\s_-]*(?:access[\\s_-]*)?key|aws[\\s_-]*secret|secretaccesskey';
const LABELLED_SECRET = new RegExp(
  `(?<![A-Za-z0-9])(?:${SECRET_LABEL})["']?[^\\S\\n]{0,3}(?:[:=]|is|=>)?[^\\S\\n]{0,3}["']?${SECRET_VALUE}`,
  'giu',
);
// An id and its secret, as AWS prints the pair: one finding for both, so that the snippet masks the
// secret too (the pieces of a split one are too short to be masked as context).
const SECRET_AFTER_ID = new RegExp(
  `(?<![A-Za-z0-9])((?:AKIA|ASIA)[A-Z0-9]{16})[\\s,:;|/]{1,5}${SECRET_VALUE}`,
  'g',
);
const WHOLE_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const SECRET_WORDS = /aws|amazon|(?<![\p{L}])s3(?![\p{L}])|(?<![\p{L}])iam(?![\p{L}])|secret|секрет/iu;
const SECRET_WORDS_DISTANCE = 64;
const looksRandom = (key: string): boolean => /[A-Z]/.test(key) && /[a-z]/.test(key) && /\d/.test(key);

const secretOf = (value: string): string | null => {
  const joined = value.replace(WHITE_SPACE, '');
  return looksRandom(joined) && evenPieces(value.trim()) ? joined : null;
};

function labelledSecret(text: string): Finding | null {
  for (const match of text.matchAll(LABELLED_SECRET)) {
    const value = match[1] ?? '';
    const secret = secretOf(value);
    if (secret === null) continue;
    const end = match.index + match[0].length;
    return { start: end - value.trimStart().length, end, secret };
  }
  return null;
}

function secretAfterId(text: string): Finding | null {
  for (const match of text.matchAll(SECRET_AFTER_ID)) {
    const [whole, id = '', value = ''] = match;
    const secret = secretOf(value);
    if (secret !== null) {
      return { start: match.index, end: match.index + whole.length, secret: `${id}:${secret}` };
    }
  }
  return null;
}

function awsSecret(text: string): Finding | null {
  return earliest(text, [
    secretAfterId,
    labelledSecret,
    (t) =>
      firstMatch(
        t,
        WHOLE_SECRET,
        (match) =>
          looksRandom(match[0]) &&
          hasWordsNear(t, match.index, match.index + 40, SECRET_WORDS, SECRET_WORDS_DISTANCE),
      ),
  ]);
}

// The AWS secret rule comes first: at the same place as an access key id, the finding that spans
// the id and its secret wins.
const PREFIXED: readonly Detector[] = [awsSecret, ...SHAPES.map(shapeDetector)];
const COMPOUNDS: readonly Detector[] = COMPOUND.map((shape) => (text: string) => firstMatch(text, shape));
// One scan for anything a prefixed shape or an AWS secret needs (a prefix, or AWS or secret words)
// before the forty-odd scans of those rules: most comments have none.
const PREFIX = new RegExp(SHAPES.map((shape) => shape.prefix).join('|'));

/** The first API key in the text, whole or split by white space, by any issuer's shape. */
export function findApiKey(text: string): Finding | null {
  const prefixed = PREFIX.test(text) || SECRET_WORDS.test(text);
  return earliest(text, prefixed ? [...PREFIXED, ...COMPOUNDS] : COMPOUNDS);
}
