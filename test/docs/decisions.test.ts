import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const folder = fileURLToPath(new URL('../../docs/decisions/', import.meta.url));
const records = readdirSync(folder)
  .filter((name) => name.endsWith('.md'))
  .sort();

/**
 * `Status: Accepted`, `Status: Superseded by 022`, or `Status: Accepted; partly superseded by 022 and 033`,
 * optionally with a note in brackets. The numbers it names are the later records.
 */
const STATUS =
  /^Status: (?:Accepted(?:; partly superseded by (\d{3}(?:(?:, | and )\d{3})*))?|Superseded by (\d{3}))(?: \([^)]+\))?$/;

/** Where a record says what became of it: the first line that starts with `Status:`, among its first five. */
function statusOf(markdown: string): string | undefined {
  return markdown
    .split('\n')
    .slice(0, 5)
    .find((line) => line.startsWith('Status:'));
}

/** The records a status line names as superseding, or null when it is not a status line. */
function supersededBy(status: string): string[] | null {
  const match = STATUS.exec(status);
  if (!match) return null;
  return (match[1] ?? match[2] ?? '').match(/\d{3}/g) ?? [];
}

describe('the status check itself', () => {
  it('reads the three forms and the records they name', () => {
    expect(supersededBy('Status: Accepted')).toEqual([]);
    expect(supersededBy('Status: Accepted (issue 34)')).toEqual([]);
    expect(supersededBy('Status: Superseded by 022')).toEqual(['022']);
    expect(supersededBy('Status: Accepted; partly superseded by 022 and 033')).toEqual(['022', '033']);
  });

  it('refuses anything else', () => {
    expect(supersededBy('Status: accepted')).toBeNull();
    expect(supersededBy('Status: Proposed')).toBeNull();
    expect(supersededBy('Status: Superseded by 22')).toBeNull();
    expect(supersededBy('Status: Accepted, see 022')).toBeNull();
  });

  it('finds the status only near the top', () => {
    expect(statusOf('# 001: A title\n\nStatus: Accepted\n\n## Context')).toBe('Status: Accepted');
    expect(statusOf('# 001: A title\n\n## Context\n\nText.\n\nStatus: Accepted')).toBeUndefined();
  });
});

describe('docs/decisions', () => {
  it('numbers its records 001, 002, … with no gap and no number used twice', () => {
    const numbers = records.map((name) => /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.exec(name)?.[1]);
    expect(numbers).toEqual(records.map((_, i) => String(i + 1).padStart(3, '0')));
  });
});

describe.each(records)('%s', (name) => {
  const markdown = readFileSync(join(folder, name), 'utf8');
  const number = name.slice(0, 3);

  it('starts with its number and title', () => {
    expect(markdown.split('\n')[0]).toMatch(new RegExp(`^# ${number}: \\S`));
  });

  it('says near the top whether it stands, and names only later records as superseding it', () => {
    const status = statusOf(markdown);
    expect(status, 'no "Status:" line among the first five').toBeDefined();
    const later = supersededBy(status ?? '');
    expect(later, `not a status line: ${status ?? ''}`).not.toBeNull();
    for (const other of later ?? []) {
      expect(other > number, `${other} is not later than ${number}`).toBe(true);
      expect(
        records.some((record) => record.startsWith(`${other}-`)),
        `no record ${other}`,
      ).toBe(true);
    }
  });
});
