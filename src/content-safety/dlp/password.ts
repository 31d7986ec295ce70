import { earliest, type Detector, type Finding } from '../finding.ts';

/*
 * A password given after a word that names one: `password: hunter2`, `my password is hunter2`,
 * `pwd hunter2`, `мой пароль qwerty`, `mi contraseña es …`, `mein Passwort ist …`, `mon mot de passe
 * est …`, `minha senha é …`. How sure the rule can be depends on what joins the label to the value,
 * so each way has its own test of the value (see `accepted`).
 */

// Words that name a password. The weak ones are words or acronyms too ("pass the salt", "palabra
// clave", "MDP: Markov decision process"), so whatever follows them must look like a password.
const STRONG_LABELS = [
  'password',
  'passwd',
  'passw',
  'pswd',
  'pwd',
  'passcode',
  'passphrase',
  'пароль',
  'contraseña',
  'contrasena',
  'passwort',
  'kennwort',
  'mot[^\\S\\n]+de[^\\S\\n]+passe',
  'senha',
];
const WEAK_LABELS = ['pass', 'pw', 'clave', 'mdp'];
const LABEL = new RegExp(
  `(?<![\\p{L}])(?:(${STRONG_LABELS.join('|')})|(${WEAK_LABELS.join('|')}))(?![\\p{L}])`,
  'giu',
);

// `password for the admin panel: …`, `пароль от почты …`, `das Passwort für das WLAN ist …`.
const PREPOSITIONS = new Set(
  'for to of on at from от для к на de del da do di für zum zur pour du per para'.split(' '),
);
const PHRASE_WORD = /[^\S\n]+([\p{L}\p{N}_.@'-]+)/uy;
// The preposition and up to three words after it.
const MAX_PHRASE_WORDS = 4;

type Joint = 'label' | 'copula' | 'bare';
// `password: …`, `password = …`, `пароль — …` (a dash only with a space after it).
const COLON = /[^\S\n]*(?:[:=]|[-–—](?=[^\S\n]))[^\S\n]*/y;
// `password is …`, `ist`, `lautet`, `est`, `es`, `é`, `è`, `это`: the value is said in a sentence.
const COPULA =
  /[^\S\n]+(?:is|was|ist|lautet|war|est|était|es|era|é|è|это|будет|был)(?:[^\S\n]*[:=\-–—])?[^\S\n]+/iuy;
const SPACE = /[^\S\n]+/y;
// Russian has no "is": `мой пароль qwerty` says as much as `my password is qwerty`.
const POSSESSIVE_BEFORE =
  /(?:^|[^\p{L}])(?:мой|моя|наш|твой|свой)(?:[^\S\n]+(?:новый|старый|текущий|временный))?[^\S\n]+$/iu;

const QUOTED = /(["'«“„‘])([^"'«»“”„‘’\n]{4,64})["'»”“’]/y;
const TOKEN = /\S{1,128}/y;
// Quotes, brackets and Markdown marks around a value (`**hunter2**`, `` `hunter2` ``) are not part of it.
const LEADING = /^[("'«“„‘[*_`]+/;
const TRAILING = /[.,;:?)\]}»"'”’…*_`]+$/;
const MIN_LENGTH = 4;
// Already masked ("password: ****") or a working directory ("pwd: /home/ivan").
const MASKED = /^[*•·.xX_-]+$/;
const PATH = /^[/~]/;

// Words that describe a password rather than being one ("password: forgot it", "мой пароль не
// подходит", "mi contraseña es incorrecta"), in the six languages the labels are in.
const NOT_A_PASSWORD = new Set(
  [
    "reset forgot forgotten changed change required incorrect wrong invalid expired doesn't does didn't",
    "isn't won't none empty hidden same please help what which where your mine this that lost unknown",
    'not correct right valid weak strong fine good bad okay simple easy hard long short secure safe',
    'unsafe blank missing gone private secret mandatory optional needed necessary locked blocked stolen',
    'leaked compromised saved stored encrypted hashed protected case very really still also just only',
    'already always never there here these those something nothing anything everything yours ours',
    'theirs when whose null unset below above attached sent different being getting accepted rejected',
    "must should need needs cannot can't will would could have goes works",
    'должен должна должно нужно надо будет debe tiene muss soll wird doit deve',
    'забыл забыла неверный неправильный неверен сбросил сбросила сбросить изменил изменила изменить',
    'поменял поменяла поменять какой такой пустой скрыт потерял потеряла помогите подскажите нужен',
    'верный правильный простой сложный слабый надёжный надежный новый старый длинный короткий скрытый',
    'украли украден утёк утек забыт сброшен изменён изменен другой прежний обычный стандартный',
    'секретный личный ниже выше здесь этот какой свой твой тоже также ещё очень слишком',
    'incorrecta incorrecto correcta correcto inválida invalida válida valida segura seguro débil debil',
    'fuerte igual nueva nuevo vieja viejo larga largo corta corto vacía vacia demasiado otra otro esta',
    'este mala malo buena bueno errónea erronea equivocada secreta obligatoria requerida olvidada',
    'falsch richtig ungültig ungueltig gültig gueltig sicher unsicher schwach stark gleich lang kurz',
    'leer nicht kein keine sehr geheim abgelaufen vergessen gesperrt geändert geaendert korrekt inkorrekt',
    'incorrecte correcte faux fausse invalide valide trop très tres oublié oublie expiré expire bonne',
    'mauvais mauvaise vide nouveau nouvelle ancien ancienne longue court courte sécurisé securise faible',
    'fort forte même meme bloqué bloque secrète',
    'incorreta incorreto correta correto errada errado certa certo muito não nao fraca antiga antigo',
    'longa curta vazia esquecida bloqueada expirada minha',
    'sbagliata giusta corretta errata troppo molto nuova vecchia debole sicura',
  ]
    .join(' ')
    .split(' '),
);
// Endings of adverbs, participles and adjectives ("definitely", "expired", "working", "utilisé",
// "olvidada", "сбросился", "простой"): a word said about a password, not a password.
const DESCRIBING_ENDING =
  /(?:ly|ed|ing|able|ible|ful|less|ous|mente|ado|ada|ados|adas|ido|ida|idos|idas|ment|é|ée|és|ées|lich|ig|bar|los|ый|ий|ой|ая|яя|ое|ее|ые|ие|ть|ться|ся|сь|ли|ла|ло|ет|ит|ют|ят|ут|ат|ен|ена|ено|ены|ан|ана|ано|аны|но)$/iu;
// A sentence-like value counts only where the clause ends after it: "my password is sunshine." but
// not "my password is case sensitive".
const CLAUSE_END =
  /^(?:[^\S\n]*(?:$|\n|[.,;!?)…]|[-–—][^\S\n])|[^\S\n]+(?:and|but|so|и|но|а|y|pero|und|aber|et|mais|e|mas|ma)(?![\p{L}]))/iu;
const PLAIN = /^[\p{L}\p{N}]+$/u;
const SYMBOL_INSIDE = /[\p{L}\p{N}][!@#$%^&*_+=~?<>|\\/{}[\]]+[\p{L}\p{N}]/u;
const LONG_NUMBER = /^\p{N}{6,}$/u;
const MIN_BARE_LENGTH = 6;

/** Letters with digits, a symbol inside, or a long number: what a password looks like and prose does not. */
const passwordLike = (value: string): boolean =>
  (/\p{L}/u.test(value) && /\p{N}/u.test(value)) || SYMBOL_INSIDE.test(value) || LONG_NUMBER.test(value);

interface Value {
  readonly value: string;
  readonly start: number;
  readonly quoted: boolean;
  /** Whether the clause ends right after the value. */
  readonly clauseEnds: boolean;
}

function valueAt(text: string, at: number): Value | null {
  QUOTED.lastIndex = at;
  const quoted = QUOTED.exec(text);
  if (quoted) {
    const value = quoted[2] ?? '';
    return { value, start: at + 1, quoted: true, clauseEnds: true };
  }
  TOKEN.lastIndex = at;
  const token = TOKEN.exec(text)?.[0];
  if (token === undefined) return null;
  const leading = LEADING.exec(token)?.[0].length ?? 0;
  const trailing = TRAILING.exec(token)?.[0] ?? '';
  const value = token.slice(leading, token.length - trailing.length);
  const clauseEnds = trailing !== '' || CLAUSE_END.test(text.slice(at + token.length, at + token.length + 8));
  return { value, start: at + leading, quoted: false, clauseEnds };
}

function accepted(
  { value, quoted, clauseEnds }: Value,
  joint: Joint,
  strong: boolean,
  label: string,
): boolean {
  if (Array.from(value).length < MIN_LENGTH || MASKED.test(value)) return false;
  if (NOT_A_PASSWORD.has(value.toLowerCase())) return false;
  if (PATH.test(value) && label.toLowerCase() === 'pwd') return false;
  if (quoted) return true;
  // A weak label needs a colon or a copula: "pass the salt", "if you pass to it a list".
  if (!strong) return joint !== 'bare' && passwordLike(value);
  if (joint === 'label') return true;
  if (joint === 'bare') return value.length >= MIN_BARE_LENGTH && passwordLike(value);
  if (passwordLike(value)) return true;
  return PLAIN.test(value) && clauseEnds && !DESCRIBING_ENDING.test(value);
}

const JOINTS: readonly (readonly [Joint, RegExp])[] = [
  ['label', COLON],
  ['copula', COPULA],
  ['bare', SPACE],
];

/** Where the words after the label may end: right after it, or after a short phrase like "for admin". */
function phraseEnds(text: string, at: number): number[] {
  const ends = [at];
  let position = at;
  for (let i = 0; i < MAX_PHRASE_WORDS; i++) {
    PHRASE_WORD.lastIndex = position;
    const word = PHRASE_WORD.exec(text);
    if (!word || (i === 0 && !PREPOSITIONS.has((word[1] ?? '').toLowerCase()))) break;
    position += word[0].length;
    ends.push(position);
  }
  return ends;
}

function valueAfter(text: string, label: RegExpExecArray): Finding | null {
  const strong = label[1] !== undefined;
  const end = label.index + label[0].length;
  const possessive = POSSESSIVE_BEFORE.test(text.slice(Math.max(0, label.index - 24), label.index));
  for (const at of phraseEnds(text, end)) {
    for (const [joint, pattern] of JOINTS) {
      pattern.lastIndex = at;
      const joined = pattern.exec(text);
      if (!joined) continue;
      const found = valueAt(text, at + joined[0].length);
      const treatedAs: Joint = joint === 'bare' && possessive ? 'copula' : joint;
      if (found && accepted(found, treatedAs, strong, label[0])) {
        return { start: found.start, end: found.start + found.value.length, secret: found.value };
      }
    }
  }
  return null;
}

function labelled(text: string): Finding | null {
  for (const label of text.matchAll(LABEL)) {
    const found = valueAfter(text, label);
    if (found) return found;
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
