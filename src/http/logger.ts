import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { safeMessage } from '../lib/error-text.ts';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

/**
 * Anything that can carry a credential is redacted wherever it appears, and request and response
 * bodies are never logged (no serializer includes them). URLs are logged without their query
 * string, because signed file links carry their signature there.
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-hub-signature"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-hub-signature"]',
  // Libraries log the request headers they were handed (@fastify/multipart's busboy options, at trace).
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["x-hub-signature"]',
  'authorization',
  'token',
  'password',
  '*.token',
  '*.password',
  '*.secret',
  // It names one device for good, and no erasure reaches log storage (decision 048).
  'hardwareIdDigest',
  '*.hardwareIdDigest',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: req.url.split('?')[0],
        ip: req.clientIp || req.ip,
      }),
      res: (res: FastifyReply) => ({ statusCode: res.statusCode }),
      // pino's default error serializer copies every enumerable field, and database errors carry the
      // query's values and rows (which will hold comment text and message bodies). Keep the shape only.
      err: (err: Error & { code?: unknown }) => {
        const message = safeMessage(err);
        return {
          type: err.name,
          message,
          ...(typeof err.code === 'string' ? { code: err.code } : {}),
          // The stack starts with the message.
          stack: err.stack?.replace(err.message, message),
        };
      },
    },
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

export type LogFormat = 'pretty' | 'json';

/**
 * `auto` is pretty for a developer at a terminal and JSON lines wherever a program reads the stream (a
 * pipe, a container's log driver, CI). `LOG_FORMAT=pretty` or `json` settles it either way.
 */
export function chooseLogFormat(
  setting: 'auto' | 'pretty' | 'json',
  nodeEnv: string,
  stdoutIsTerminal: boolean,
): LogFormat {
  if (setting !== 'auto') return setting;
  return nodeEnv === 'development' && stdoutIsTerminal ? 'pretty' : 'json';
}

const writeNote = (line: string) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Where the service's log lines go: undefined for pino's own (JSON lines on stdout), or pino-pretty on
 * stdout. pino-pretty is a development dependency, absent from the production image, so it is loaded only
 * when wanted; when it cannot be, the lines stay JSON and one note on stderr says why. Redaction and the
 * serializers run before either, so both show the same fields.
 */
export async function logDestination(
  format: LogFormat,
  note: (line: string) => void = writeNote,
): Promise<DestinationStream | undefined> {
  if (format === 'json') return undefined;
  try {
    const { default: pretty } = await import('pino-pretty');
    // Synchronous, like pino's own stdout: a line is out before the next one (or the banner) is written.
    return pretty({ sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' });
  } catch (error) {
    const missing = error instanceof Error && (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
    note(
      missing
        ? 'Pretty logs need pino-pretty, a development dependency that is not installed; logging JSON.'
        : `Pretty logs are off, pino-pretty did not load (${error instanceof Error ? safeMessage(error) : 'unknown error'}); logging JSON.`,
    );
    return undefined;
  }
}

/**
 * One log line per request, when it completes, carrying both request and response (fastify's default is
 * an "incoming" and a "completed" line). Halves the logging cost on the hot path; a request that never
 * completes shows up in the latency metrics and the client's timeout instead.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Logged on completion instead.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
