import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkComment, type SafetyKind } from '../../src/content-safety/index.ts';
import { EVASIONS, NEGATIVES, POSITIVES, type Positive } from './corpus.ts';

const options = { hashKey: 'corpus-test-key' };
const MAX_FALSE_POSITIVE_RATE = 0.01;
const kinds = Object.keys(POSITIVES) as SafetyKind[];
const allPositives = Object.values(POSITIVES).flat();

const show = (text: string): string => JSON.stringify(text.length > 90 ? `${text.slice(0, 90)}…` : text);

function report(): { misses: string[]; falsePositives: string[] } {
  const lines = ['content safety corpus', 'kind         positives  found  recall'];
  const misses: string[] = [];
  for (const kind of kinds) {
    const positives = POSITIVES[kind];
    const missed = positives.filter((example) => checkComment(example.text, options)?.kind !== kind);
    const found = positives.length - missed.length;
    lines.push(
      `${kind.padEnd(12)} ${String(positives.length).padStart(9)} ${String(found).padStart(6)}  ${(found / positives.length).toFixed(3)}`,
    );
    for (const example of missed) {
      misses.push(`${kind}: ${show(example.text)} -> ${checkComment(example.text, options)?.kind ?? 'null'}`);
    }
  }
  const falsePositives = NEGATIVES.flatMap((text) => {
    const hit = checkComment(text, options);
    return hit ? [`${hit.kind}: ${show(text)}`] : [];
  });
  const rate = falsePositives.length / NEGATIVES.length;
  lines.push(
    `negatives ${NEGATIVES.length}, false positives ${falsePositives.length} (${(rate * 100).toFixed(2)} %)`,
    ...evasionLines(),
    ...misses.map((miss) => `  miss ${miss}`),
    ...falsePositives.map((hit) => `  false positive ${hit}`),
  );
  console.log(lines.join('\n'));
  return { misses, falsePositives };
}

/** Each evasion class on its own: recall on its positives, false positives on its look-alike negatives. */
function evasionLines(): string[] {
  const lines = [
    'evasion class                            positives  found  recall  negatives  false positives',
  ];
  for (const evasion of EVASIONS) {
    const found = evasion.positives.filter(
      (example) => checkComment(example.text, options)?.kind === example.kind,
    ).length;
    const flagged = evasion.negatives.filter((text) => checkComment(text, options) !== null).length;
    lines.push(
      `${evasion.name.padEnd(40)} ${String(evasion.positives.length).padStart(9)} ${String(found).padStart(6)}  ${(found / evasion.positives.length).toFixed(3)} ${String(evasion.negatives.length).padStart(10)} ${String(flagged).padStart(16)}`,
    );
  }
  return lines;
}

const normalise = (text: string): string =>
  text.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '');

/** Each four-character run of the secret (raw and normalised) that the snippet shows. */
function leakedRuns(example: Positive, snippet: string): string[] {
  const rest = example.text.replace(example.secret, ' ');
  const around = `${rest} ${normalise(rest)}`;
  const runs = new Set<string>();
  for (const secret of [example.secret, normalise(example.secret)]) {
    for (let i = 0; i + 4 <= secret.length; i++) runs.add(secret.slice(i, i + 4));
  }
  // A run that the text around the secret also holds ("pass" in "password: …") tells nothing.
  return [...runs].filter((run) => run.trim().length === 4 && snippet.includes(run) && !around.includes(run));
}

describe('the content safety corpus', () => {
  it('finds every positive as its own kind and keeps false positives under 1 %', () => {
    const { misses, falsePositives } = report();
    expect(misses).toEqual([]);
    expect(falsePositives.length / NEGATIVES.length).toBeLessThan(MAX_FALSE_POSITIVE_RATE);
  });

  it('holds enough examples to mean something', () => {
    for (const kind of kinds) expect(POSITIVES[kind].length).toBeGreaterThanOrEqual(15);
    expect(NEGATIVES.length).toBeGreaterThanOrEqual(500);
    for (const evasion of EVASIONS) {
      expect(evasion.positives.length).toBeGreaterThanOrEqual(15);
      expect(evasion.negatives.length).toBeGreaterThanOrEqual(10);
    }
  });

  it.each(allPositives.map((example) => [example.kind, show(example.text), example] as const))(
    '%s %s: the snippet holds none of the secret and the hash is keyed',
    (_kind, _text, example) => {
      const hit = checkComment(example.text, options);
      expect(hit).not.toBeNull();
      if (!hit) return;
      expect(hit.snippet).not.toContain(example.secret);
      expect(leakedRuns(example, hit.snippet)).toEqual([]);
      expect(hit.snippet).toContain('•');
      expect(Array.from(hit.snippet).length).toBeLessThanOrEqual(42);
      expect(hit.hash).toMatch(/^[0-9a-f]{64}$/);
      const plain = (value: string): string => createHash('sha256').update(value).digest('hex');
      expect(hit.hash).not.toBe(plain(example.secret));
      expect(hit.hash).not.toBe(plain(example.secret.normalize('NFKC')));
      expect(hit.hash).not.toContain(example.secret);
      expect(checkComment(example.text, { hashKey: 'another key' })?.hash).not.toBe(hit.hash);
    },
  );
});
