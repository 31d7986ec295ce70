import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The maps of the code: each must name paths, so that a moved file shows up here. */
const maps = ['docs/architecture.md', 'README.md'];
/** The maps and every Markdown document under docs/: the decisions and the reference documents. */
const documents = [...new Set([...maps, ...markdownUnder('docs')])];

/** Folders a backticked repository path starts with. */
const PATH_PREFIXES = ['src/', 'test/', 'docs/', 'bench/', 'scripts/', 'clients/', 'console/', '.ci/'];
/** Files at the repository root that a document may name on their own. */
const ROOT_FILES = new Set([
  'package.json',
  'package-lock.json',
  'README.md',
  'Dockerfile',
  'docker-compose.yml',
  'tsconfig.json',
  'tsconfig.build.json',
  'vitest.config.ts',
  'eslint.config.js',
  '.prettierrc.json',
  '.prettierignore',
  '.gitignore',
  '.dockerignore',
]);
/** Globs, placeholders (`<name>`, `…`) and anything with a space are patterns or commands, not paths. */
const NOT_A_PATH = /[\s*?[\]{}<>|…]|\.\.\./;

/** Where something is named in a document: its line, and what is named. */
interface Reference {
  readonly line: number;
  readonly target: string;
}

const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** Every `.md` file under a folder, as paths from the repository root. */
function markdownUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** Fenced code blocks are examples and sketches, not references: they become blank lines. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^ *(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ *\1[^\n]*$/gm, (block) =>
    block.replace(/[^\n]/g, ''),
  );
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** Every inline code span that looks like a path from the repository root. */
function backtickedPaths(markdown: string): Reference[] {
  const text = withoutFences(markdown);
  const found: Reference[] = [];
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const token = (match[1] ?? '').trim();
    if (NOT_A_PATH.test(token)) continue;
    if (!ROOT_FILES.has(token) && !PATH_PREFIXES.some((prefix) => token.startsWith(prefix))) continue;
    found.push({ line: lineAt(text, match.index), target: token });
  }
  return found;
}

/**
 * Every relative link target (`[text](target)` and `[label]: target`), as a path from the repository
 * root; web addresses and in-page anchors are left out.
 */
function linkedPaths(markdown: string, document: string): Reference[] {
  const text = withoutFences(markdown);
  const found: Reference[] = [];
  const targets = [
    ...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
    ...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm),
  ];
  for (const match of targets) {
    const raw = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('#') || raw.startsWith('/')) continue;
    const target = decodeURIComponent(raw.replace(/[#?].*$/, ''));
    if (target === '') continue;
    const fromRoot = posix.normalize(posix.join(posix.dirname(document), target));
    found.push({ line: lineAt(text, match.index), target: fromRoot });
  }
  return found;
}

/** A file, or a folder holding at least one file (git keeps no empty folders, so a clone would lack it). */
function exists(path: string): boolean {
  const absolute = resolve(root, path);
  if (relative(root, absolute).split(sep)[0] === '..') return false;
  if (!existsSync(absolute)) return false;
  const stats = statSync(absolute);
  if (stats.isFile()) return !path.endsWith('/');
  return stats.isDirectory() && holdsAFile(absolute);
}

function holdsAFile(folder: string): boolean {
  return readdirSync(folder, { withFileTypes: true }).some(
    (entry) => entry.isFile() || (entry.isDirectory() && holdsAFile(join(folder, entry.name))),
  );
}

const missing = (document: string, references: readonly Reference[]): string[] =>
  references.filter((r) => !exists(r.target)).map((r) => `${document}:${r.line} ${r.target}`);

/** The lines that point at the shared folder beside the repository, by its relative or absolute path. */
function mentionsOfShared(document: string, markdown: string): string[] {
  const absolute = resolve(root, '../shared');
  return markdown
    .split('\n')
    .map((text, index) => ({ text, line: index + 1 }))
    .filter(({ text }) => /\.\.[/\\]shared\b/.test(text) || text.includes(absolute))
    .map(({ text, line }) => `${document}:${line} ${text.trim()}`);
}

describe('the path check itself', () => {
  const sample = [
    'See `src/main.ts`, `src/http/` and `package.json`, and [a decision](docs/decisions/).',
    'Not paths: `npm run lint`, `src/**/*.ts`, `src/events/<domain>.ts`, `comments/<id>`, `GET /api`.',
    '```',
    'src/inside-a-fence-is-not-checked.ts',
    '```',
    'A wrong one: `src/no-such-file.ts`, and [a wrong link](../docs/no-such.md).',
  ].join('\n');

  it('finds backticked repository paths, and skips commands, globs, placeholders and fenced blocks', () => {
    expect(backtickedPaths(sample).map((r) => r.target)).toEqual([
      'src/main.ts',
      'src/http/',
      'package.json',
      'src/no-such-file.ts',
    ]);
  });

  it('resolves relative links from the folder of the document that holds them', () => {
    expect(linkedPaths(sample, 'docs/architecture.md').map((r) => r.target)).toEqual([
      'docs/docs/decisions/',
      'docs/no-such.md',
    ]);
    expect(linkedPaths(sample, 'README.md').map((r) => r.target)).toEqual([
      'docs/decisions/',
      '../docs/no-such.md',
    ]);
  });

  it('reports every path that does not exist, with its line, and only those', () => {
    expect(missing('sample.md', backtickedPaths(sample))).toEqual(['sample.md:6 src/no-such-file.ts']);
    expect(missing('README.md', linkedPaths(sample, 'README.md'))).toEqual([
      'README.md:6 ../docs/no-such.md',
    ]);
  });

  it('takes a folder for a folder only when it holds a file, and a file never for a folder', () => {
    expect(exists('src/')).toBe(true);
    expect(exists('src/main.ts')).toBe(true);
    expect(exists('src/main.ts/')).toBe(false);
    expect(exists('../shared')).toBe(false);
  });

  it('catches a mention of the shared folder, linked or not', () => {
    const text = 'Fine.\nThe spec is `../shared/spec.md`.\nSee [it](../shared/API.md).';
    expect(mentionsOfShared('x.md', text)).toEqual([
      'x.md:2 The spec is `../shared/spec.md`.',
      'x.md:3 See [it](../shared/API.md).',
    ]);
  });
});

describe('the documents checked', () => {
  it('are the maps, the decision records and the other documents under docs/', () => {
    expect(documents).toEqual(
      expect.arrayContaining([...maps, 'docs/decisions/001-node-24-provisioning.md']),
    );
    expect(documents.filter((path) => path.startsWith('docs/decisions/')).length).toBeGreaterThan(30);
  });
});

describe.each(maps)('%s as a map', (document) => {
  it('names repository paths', () => {
    expect(backtickedPaths(read(document)).length, 'no repository path was found at all').toBeGreaterThan(0);
  });
});

describe.each(documents)('%s', (document) => {
  const markdown = read(document);

  it('names only repository paths that exist', () => {
    expect(missing(document, backtickedPaths(markdown))).toEqual([]);
  });

  it('links only to files inside the repository that exist', () => {
    expect(missing(document, linkedPaths(markdown, document))).toEqual([]);
  });

  it('neither links nor refers to the shared folder beside the repository', () => {
    expect(mentionsOfShared(document, markdown)).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  it('maps the code by many of its paths, so a moved file shows up here', () => {
    expect(backtickedPaths(read('docs/architecture.md')).length).toBeGreaterThan(100);
  });
});
