/*
 * Rules run on a normalised copy so that the same secret or link written with fullwidth forms,
 * invisible characters or a "defanged" spelling looks the same as its plain form. The stored comment
 * keeps the original text; only the check sees this copy.
 */

// Zero-width space and joiners, soft hyphen, BOM, variation selectors: invisible, so they can split a
// word or a host name without the reader noticing.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

// Defanging is how links are shared past filters; undoing it lets the link rules see them. Spaces
// around the bracketed forms go too, since `example [.] com` is as clear to a reader.
const DEFANGS: readonly (readonly [RegExp, string])[] = [
  [/hxxp/gi, 'http'],
  // Any bracket pair, spaces inside too: `[.]`, `( dot )`, `<dot>`, `{ . }`, `(точка)`. Each leading
  // run of spaces starts only where spaces start (the look-behind): tried from inside a long run of
  // spaces, the pattern would rescan the rest of it every time, quadratic in the run's length.
  [/(?<![^\S\n])[^\S\n]*[[({<][^\S\n]*(?:\.|dot|точка)[^\S\n]*[\])}>][^\S\n]*/giu, '.'],
  // The ideographic full stop between Latin letters or digits (`example。com`): NFKC keeps it.
  [/\u3002(?<=[A-Za-z0-9]\u3002)(?=[A-Za-z0-9])/g, '.'],
  // Lower or upper case only: a title-case " Dot " is more often a name than a defanged dot.
  [/(?<![^\S\n])[^\S\n]+(?:dot|DOT)[^\S\n]+/g, '.'],
  [/\[:\]/g, ':'],
  [/(?<!\s)\s*(?:\[@\]|\[at\]|\(at\)|\{at\})\s*/gi, '@'],
];

export function normalise(text: string): string {
  let copy = text.normalize('NFKC').replace(IGNORABLE, '');
  for (const [pattern, replacement] of DEFANGS) copy = copy.replace(pattern, replacement);
  return copy;
}
