import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

/**
 * fastify binds each request's id in a child logger made when the request arrives, and with redaction
 * configured pino runs its redactor over those bindings (3 % of a cached poll's CPU). Most requests write
 * nothing at the configured level (at `warn`, nothing at all), so the child is made by the first line that
 * will be written, and never for a request that writes none. Lines come out exactly as from the child.
 * A class, so that a request costs one small object and no closures.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  #child: Logger | undefined;
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    // A route's `logLevel` reaches the child as its level; otherwise it follows the parent.
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {
    // Writes nothing, as pino's own.
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #made(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #write(level: Level, args: unknown[]): void {
    const { values } = this.#parent.levels;
    if ((values[level] ?? -Infinity) < (values[this.level] ?? Infinity)) return;
    const child = this.#made();
    Reflect.apply(child[level], child, args);
  }
}

export function lazyRequestLogger(
  parent: Logger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(parent, bindings, options);
}
