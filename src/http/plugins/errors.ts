import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { PasswordPolicyError } from '../../auth/admin-accounts.ts';
import { ConcurrencyExhaustedError } from '../../commands/handler.ts';
import { DomainError } from '../../lib/domain-error.ts';
import { UploadRejected } from '../../files/types.ts';
import { ProviderError } from '../../integrations/intercom/errors.ts';
import { providerProblem } from '../../integrations/intercom/problem.ts';
import { type FieldError, HttpProblem, type Problem, problem } from '../problem.ts';

function validationErrors(error: FastifyError): FieldError[] {
  const where = error.validationContext ?? 'body';
  return (error.validation ?? []).flatMap((v) => {
    const base = [where, ...v.instancePath.split('/').filter(Boolean)].join('.');
    // An unknown field is reported once per key, at the key's own path.
    const keys = (v.params as { keys?: unknown }).keys;
    if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
      return keys.map((k) => ({ path: `${base}.${String(k)}`, message: 'unknown field' }));
    }
    return [{ path: base, message: v.message ?? 'invalid' }];
  });
}

// Fastify's own errors that are the client's fault, mapped to stable codes. Anything else is a 500
// whose details stay in the log.
const domainStatus: Record<DomainError['kind'], number> = {
  invalid_transition: 409,
  forbidden: 403,
  not_found: 404,
};

// @fastify/busboy reports a form that is not what its header says (no boundary, another boundary, cut
// short) as plain Errors, wherever the form is being read: the route, or the upload streaming to storage.
const MALFORMED_MULTIPART =
  /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|\w+ terminated early due to unexpected end of multipart data)$/;

function toProblem(error: FastifyError): Problem {
  if (error instanceof HttpProblem) return problem(error.statusCode, error.code, error.detail, error.errors);
  if (error instanceof DomainError) {
    return problem(domainStatus[error.kind], error.code, error.message, undefined, error.extensions);
  }
  if (error instanceof UploadRejected) return problem(error.status, error.code, error.detail);
  if (error instanceof ProviderError) {
    const mapped = providerProblem(error);
    return problem(mapped.status, mapped.code, mapped.detail);
  }
  if (error instanceof PasswordPolicyError) {
    return problem(400, 'validation_failed', 'The password is not acceptable.', [
      { path: 'body.password', message: error.reason },
    ]);
  }
  if (error instanceof ConcurrencyExhaustedError) {
    return problem(409, 'conflict', 'The resource kept changing; retry the request.');
  }
  if (error.validation)
    return problem(400, 'validation_failed', 'The request is invalid.', validationErrors(error));
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problem(400, 'validation_failed', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(400, 'validation_failed', 'Content-Length does not match the body.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'payload_too_large', 'The body is larger than this endpoint accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return problem(415, 'unsupported_media_type', 'This content type is not accepted here.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return problem(413, 'upload_too_large', 'The file is larger than this endpoint accepts.');
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return problem(400, 'validation_failed', 'Send one file in the multipart field `file`, nothing else.');
    default:
      break;
  }
  if (MALFORMED_MULTIPART.test(error.message)) {
    return problem(400, 'bad_request', 'The multipart body is malformed or cut short.');
  }
  if (error.statusCode === 429) return problem(429, 'rate_limited', 'Too many requests; retry later.');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return problem(error.statusCode, 'bad_request', undefined);
  }
  return problem(500, 'internal_error');
}

/**
 * Fastify's router errors, raised before any route (and so before the error handler) runs: a path that
 * does not decode, or a parameter longer than the router takes. Given as the `frameworkErrors` option.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const body =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? problem(414, 'bad_request', 'A path segment is longer than this service accepts.')
      : error.code === 'FST_ERR_BAD_URL'
        ? problem(400, 'bad_request', 'The path is not valid percent-encoded UTF-8.')
        : problem(500, 'internal_error');
  void reply.code(body.status).type('application/problem+json').send(body);
}

/**
 * Errors Node's HTTP parser meets before there is a request (headers too large, a malformed request
 * line, a client too slow): answered as a problem on the raw socket, then the socket is closed, as Node
 * itself would. Given as the `clientErrorHandler` option.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'bad_request', 'The request headers are larger than this service accepts.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'bad_request', 'The request took too long to arrive.']
        : [400, 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify(problem(status, code, detail));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n` +
        `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export const errorsPlugin = fp(
  (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const body = toProblem(error);
      if (body.status >= 500) request.log.error({ err: error }, 'request failed');
      else request.log.info({ code: body.code }, 'request refused');
      if (error instanceof HttpProblem) void reply.headers(error.headers);
      if (error instanceof ProviderError) void reply.headers(providerProblem(error).headers);
      return reply.code(body.status).type('application/problem+json').send(body);
    });
    app.setNotFoundHandler((_request, reply) => {
      return reply
        .code(404)
        .type('application/problem+json')
        .send(problem(404, 'not_found', 'No such resource.'));
    });
  },
  { name: 'errors' },
);
