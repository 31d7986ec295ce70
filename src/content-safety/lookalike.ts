/*
 * Cyrillic and Greek letters that render like Latin ones. A host name spelled with them (`раураl.соm`)
 * reads as a familiar domain yet escapes a TLD list written in Latin, so it is folded to Latin and
 * checked again. Only letters a reader would take for the Latin one are here; each letter of the
 * first string reads as the letter at the same place in the second.
 */
const LOOKALIKES = [
  ['авеёкмнорстухѕіїјԁԛԝһүӏАВЕКМНОРСТУХЅІЈ', 'abeekmhopctyxsiijdqwhylABEKMHOPCTYXSIJ'],
  ['αβεικνορτυχγΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'abeikvoptuxyABEZHIKMNOPTYX'],
] as const;

const LATIN = new Map(
  LOOKALIKES.flatMap(([foreign, latin]) =>
    Array.from(foreign, (letter, i): [string, string] => [letter, latin.charAt(i)]),
  ),
);
const FOLDABLE = new RegExp(`[${[...LATIN.keys()].join('')}]`, 'gu');
const NON_ASCII = /[^\p{ASCII}]/u;

/** The Latin reading of `word` when every letter of it has one, else null. */
export function latinReading(word: string): string | null {
  const folded = word.replace(FOLDABLE, (letter) => LATIN.get(letter) ?? letter);
  return folded === word || NON_ASCII.test(folded) ? null : folded;
}
