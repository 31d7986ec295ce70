// `promtool check metrics` in TypeScript: the lint rules of Prometheus' promlint
// (github.com/prometheus/client_golang, prometheus/testutil/promlint/validations), applied to the text
// exposition format /metrics answers with. A port rather than the binary, so `npm test` needs nothing
// installed (the Debian package that carries promtool is the whole Prometheus server, about 100 MB).

export interface MetricFamily {
  readonly name: string;
  /** `counter`, `gauge`, `histogram`, `summary`, or `untyped` when no TYPE line names one. */
  type: string;
  help: string | undefined;
  readonly labelNames: Set<string>;
}

export interface LintProblem {
  readonly metric: string;
  readonly text: string;
}

// Units and the base unit each stands for; prefixed forms (milliseconds, kilobytes) are never base.
const UNITS: Readonly<Record<string, string>> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const UNIT_PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];
const UNIT_ABBREVIATIONS = ['s', 'ms', 'us', 'ns', 'sec', 'b', 'kb', 'mb', 'gb', 'tb', 'pb', 'm', 'h', 'd'];
const TYPE_NAMES = ['counter', 'gauge', 'summary', 'histogram', 'gauge_histogram'];
const CAMEL_CASE = /[a-z][A-Z]/;

const containsSegment = (name: string, segment: string) =>
  name.includes(`_${segment}_`) || name.endsWith(`_${segment}`);

function metricUnit(name: string): { unit: string; base: string } | null {
  for (const segment of name.split('_')) {
    const base = UNITS[segment];
    if (base !== undefined) return { unit: segment, base };
    for (const prefix of UNIT_PREFIXES) {
      const unprefixed = segment.startsWith(prefix) ? UNITS[segment.slice(prefix.length)] : undefined;
      if (unprefixed !== undefined) return { unit: segment, base: unprefixed };
    }
  }
  return null;
}

/** promlint's default validations (help, units, counters, reserved suffixes and labels, type in name,
 *  colons, camelCase, abbreviated units) and its gauge rule (`_timestamp_seconds`). */
export function lintFamily(family: MetricFamily): string[] {
  const { name, type } = family;
  const lower = name.toLowerCase();
  const problems: string[] = [];
  if (family.help === undefined) problems.push('no help text');
  const unit = metricUnit(name);
  if (unit !== null && unit.unit !== unit.base) {
    problems.push(`use base unit "${unit.base}" instead of "${unit.unit}"`);
  }
  const isCounter = type === 'counter';
  const isUntyped = type === 'untyped';
  const isHistogram = type === 'histogram';
  const isSummary = type === 'summary';
  if (isCounter && !name.endsWith('_total')) problems.push('counter metrics should have "_total" suffix');
  if (!isUntyped && !isCounter && name.endsWith('_total')) {
    problems.push('non-counter metrics should not have "_total" suffix');
  }
  if (!isUntyped) {
    if (!isHistogram && name.endsWith('_bucket')) {
      problems.push('non-histogram metrics should not have "_bucket" suffix');
    }
    if (!isHistogram && !isSummary && name.endsWith('_count')) {
      problems.push('non-histogram and non-summary metrics should not have "_count" suffix');
    }
    if (!isHistogram && !isSummary && name.endsWith('_sum')) {
      problems.push('non-histogram and non-summary metrics should not have "_sum" suffix');
    }
    if (!isHistogram && family.labelNames.has('le')) {
      problems.push('non-histogram metrics should not have "le" label');
    }
    if (!isSummary && family.labelNames.has('quantile')) {
      problems.push('non-summary metrics should not have "quantile" label');
    }
    if (type !== 'gauge' && name.endsWith('_timestamp_seconds')) {
      problems.push('non-gauge metrics should not have "_timestamp_seconds" suffix');
    }
  }
  for (const typeName of TYPE_NAMES) {
    if (containsSegment(lower, typeName)) problems.push(`metric name should not include type '${typeName}'`);
  }
  if (name.includes(':')) problems.push("metric names should not contain ':'");
  if (CAMEL_CASE.test(name)) problems.push("metric names should be written in 'snake_case' not 'camelCase'");
  for (const label of family.labelNames) {
    if (CAMEL_CASE.test(label)) {
      problems.push("label names should be written in 'snake_case' not 'camelCase'");
    }
  }
  for (const abbreviation of UNIT_ABBREVIATIONS) {
    if (containsSegment(lower, abbreviation))
      problems.push('metric names should not contain abbreviated units');
  }
  return problems;
}

/** The label names of one sample's `{…}` block, reading quoted values with their escapes. */
function labelNamesOf(block: string): string[] {
  const names: string[] = [];
  let i = 0;
  while (i < block.length) {
    const match = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"/.exec(block.slice(i));
    if (!match?.[1]) throw new Error(`unreadable labels: {${block}}`);
    names.push(match[1]);
    i += match[0].length;
    while (i < block.length && block[i] !== '"') i += block[i] === '\\' ? 2 : 1;
    i += 1; // the closing quote
    const rest = /^\s*,?/.exec(block.slice(i));
    i += rest?.[0].length ?? 0;
  }
  return names;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+\S+/;

/** The metric families of a text exposition (version 0.0.4), with their label names. */
export function parseExposition(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: 'untyped', help: undefined, labelNames: new Set() };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
    if (meta?.[1] && meta[2]) {
      if (meta[1] === 'HELP') family(meta[2]).help = meta[3] ?? '';
      else family(meta[2]).type = meta[3]?.trim() ?? 'untyped';
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample?.[1]) throw new Error(`unreadable sample: ${line}`);
    const sampleName = sample[1];
    // A histogram's or a summary's samples carry suffixes of their family's name.
    const base = /^(.*)_(bucket|sum|count)$/.exec(sampleName)?.[1];
    const owner =
      base !== undefined && ['histogram', 'summary'].includes(families.get(base)?.type ?? '')
        ? family(base)
        : family(sampleName);
    for (const label of labelNamesOf(sample[2] ?? '')) {
      // `le` and `quantile` of a histogram's buckets or a summary's quantiles are not labels of the family.
      if (label === 'le' && owner.type === 'histogram') continue;
      if (label === 'quantile' && owner.type === 'summary') continue;
      owner.labelNames.add(label);
    }
  }
  return [...families.values()];
}

/** What `promtool check metrics` would say of this exposition, one entry per complaint. */
export function lintExposition(text: string): LintProblem[] {
  return parseExposition(text).flatMap((f) =>
    lintFamily(f).map((problem) => ({ metric: f.name, text: problem })),
  );
}
