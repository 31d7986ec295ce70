// Writes docs/configuration.md and .env.example from envSchema (src/config.ts): `npm run docs:config`.
// The meanings are the schema's descriptions, the defaults what it parses from an empty environment, the
// production rules its guard table. test/docs/configuration.test.ts renders both again and compares.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { z } from 'zod';
import { type Config, envSchema, productionGuards, settingGroups } from '../src/config.ts';

export const CONFIGURATION_DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
export const ENV_EXAMPLE = fileURLToPath(new URL('../.env.example', import.meta.url));

const COMMAND = 'npm run docs:config';

/** One setting as both files show it. */
interface Setting {
  readonly name: keyof Config;
  readonly meaning: string;
  /** The default as an environment value; undefined when the schema has none. */
  readonly value: string | undefined;
  /** The default in production, when it differs. */
  readonly productionValue: string | undefined;
  /** What leaving it unset means, when that is no plain value. */
  readonly unset: string | undefined;
  readonly guards: readonly string[];
}

/** A parsed value written back as the environment string that gives it. */
function asEnvironmentValue(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(',');
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  throw new Error(`${name}: no environment form for its default ${JSON.stringify(value)}`);
}

function describeSetting(
  name: keyof Config,
  schema: z.ZodType,
  development: Config,
  production: Config,
): Setting {
  const meta = schema.meta();
  const meaning = meta?.description;
  if (meaning === undefined) throw new Error(`${name} has no description in src/config.ts`);
  const unset = typeof meta?.unset === 'string' ? meta.unset : undefined;
  const value = asEnvironmentValue(name, development[name]);
  // NODE_ENV is what differs between the two parses, not a default that depends on it.
  const inProduction = name === 'NODE_ENV' ? value : asEnvironmentValue(name, production[name]);
  if (value !== undefined && unset !== undefined) {
    throw new Error(`${name} defaults to ${value}, so its "unset" note in src/config.ts is never true`);
  }
  return {
    name,
    meaning,
    value,
    productionValue: inProduction === value ? undefined : inProduction,
    unset,
    guards: productionGuards.filter((guard) => guard.name === name).map((guard) => guard.reason),
  };
}

/** Every setting by group, in the schema's order; a setting outside the groups or in two is an error. */
export function settingsByGroup(): { title: string; settings: Setting[] }[] {
  const development = envSchema.parse({});
  const production = envSchema.parse({ NODE_ENV: 'production' });
  const groups = settingGroups.map((group) => ({
    title: group.title,
    settings: Object.entries(group.settings).map(([name, schema]: [string, z.ZodType]) =>
      describeSetting(name as keyof Config, schema, development, production),
    ),
  }));
  const grouped = groups.flatMap((group) => group.settings.map((s) => s.name)).sort();
  const declared = Object.keys(envSchema.in.shape).sort();
  if (JSON.stringify(grouped) !== JSON.stringify(declared)) {
    throw new Error(`settingGroups lists ${grouped.join(' ')}, envSchema declares ${declared.join(' ')}`);
  }
  return groups;
}

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replaceAll('|', '\\|');
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

function markdownDefault(setting: Setting): string {
  if (setting.value === undefined) return setting.unset ?? '—';
  if (setting.productionValue === undefined) return code(setting.value);
  return `${code(setting.value)}; ${code(setting.productionValue)} in production`;
}

function markdownMeaning(setting: Setting): string {
  return setting.guards.length === 0
    ? setting.meaning
    : `${setting.meaning} ([production guard](#production-boot-guards))`;
}

const MARKDOWN_HEAD = `# Configuration

<!-- Generated from envSchema in src/config.ts by \`${COMMAND}\`: edit the schema, not this file. -->

The service reads its settings from the environment once, through one zod schema (\`envSchema\` in
\`src/config.ts\`), and refuses to start on an invalid value, naming every problem. An empty variable counts
as unset. Booleans are \`1\`/\`true\` or \`0\`/\`false\`. \`.env.example\` lists the same settings, each
commented out at its default.
`;

const MARKDOWN_TAIL = `## Read elsewhere

The launcher \`scripts/node24.mjs\` keeps Node 24 in \`NODE24_CACHE_DIR\` (decision 001). Tests also read
\`TEST_DATABASE_URL\` (a server where they may create databases), \`REDIS_URL\`, \`EVENTSTORE_URL\`,
\`REQUIRE_KURRENTDB\`, \`TEST_LOG\` and \`CI\`; the benchmarks' \`BENCH_*\` settings are in
\`bench/README.md\`.
`;

/** docs/configuration.md as the schema gives it, formatted by Prettier so that `npm run format` keeps it. */
export async function configurationMarkdown(): Promise<string> {
  const tables = settingsByGroup().map(({ title, settings }) =>
    [
      `## ${title}`,
      '',
      '| Setting | Default | Meaning |',
      '| --- | --- | --- |',
      ...settings.map(
        (s) => `| ${code(s.name)} | ${cell(markdownDefault(s))} | ${cell(markdownMeaning(s))} |`,
      ),
      '',
    ].join('\n'),
  );
  const guards = [
    '## Production boot guards',
    '',
    'With `NODE_ENV=production` the service refuses to start while any of these fails, naming every one.',
    '',
    '| Setting | Guard |',
    '| --- | --- |',
    ...productionGuards.map((guard) => `| ${code(guard.name)} | ${cell(guard.reason)} |`),
    '',
  ].join('\n');
  const text = [MARKDOWN_HEAD, ...tables, guards, MARKDOWN_TAIL].join('\n');
  const options = await resolveConfig(CONFIGURATION_DOC, { editorconfig: true });
  return format(text, { ...options, filepath: CONFIGURATION_DOC });
}

/** .env.example as the schema gives it: every setting commented out, at its default, with no secret. */
export function envExample(): string {
  const plain = (text: string) => text.replaceAll('`', '');
  const lines = [
    '# Every setting of the service, commented out at its default. Generated from envSchema in',
    `# src/config.ts by \`${COMMAND}\`; docs/configuration.md says the same at more length.`,
    '# An empty value counts as unset; booleans are 1/true or 0/false.',
  ];
  for (const { title, settings } of settingsByGroup()) {
    lines.push('', `# --- ${title} ---`);
    for (const setting of settings) {
      lines.push('', `# ${plain(sentence(setting.meaning))}`);
      if (setting.unset !== undefined) lines.push(`# Unset: ${plain(setting.unset)}.`);
      if (setting.productionValue !== undefined) {
        lines.push(`# Default: ${setting.value ?? 'unset'}; ${setting.productionValue} in production.`);
      }
      for (const reason of setting.guards) lines.push(`# In production this ${reason}.`);
      const example = setting.productionValue === undefined ? (setting.value ?? '') : '';
      lines.push(`# ${setting.name}=${example}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  await writeFile(CONFIGURATION_DOC, await configurationMarkdown());
  await writeFile(ENV_EXAMPLE, envExample());
  process.stdout.write(`Wrote ${CONFIGURATION_DOC} and ${ENV_EXAMPLE}\n`);
}
