import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isValidHost } from '#functions/http/host.ts';
import type { Logger } from '#functions/http/log.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { TtlCache } from './cache.ts';
import { refuseAuthorization } from './edge.ts';
import {
  apiEvent,
  authorizerEvent,
  type IncomingRequest,
  newRequestId,
  type RequestParts,
  requestParts,
  splitTarget,
} from './event.ts';
import type { RateLimiter } from './rate-limit.ts';
import {
  answerFromResult,
  authorizerFailed,
  badGateway,
  badRequest,
  forbidden,
  type HttpAnswer,
  MalformedResult,
  missingRoute,
  missingUsageKey,
  tooLarge,
  unauthorized,
} from './result.ts';
import { routeMatcher } from './route-match.ts';

/** API Gateway's request payload quota (10 MB), taken as 10 MiB. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export interface GatewayRoute {
  method: string;
  path: string;
  handler: (event: ApiEvent) => Promise<unknown>;
}

export interface ListenerConfig {
  routes: readonly GatewayRoute[];
  authorizer: (event: AuthorizerEvent) => Promise<unknown>;
  authorizerCacheTtlSeconds: number;
  authorizerCacheMaxEntries?: number;
  maxPayloadBytes?: number;
  /**
   * The API's own base URL (default: the URL the request came in on, `http://localhost:<port>`):
   * its host is the events' `domainName`, from which handlers build `Link`, never the client's `Host`.
   */
  baseUrl?: () => string | undefined;
  logger: Logger;
  /**
   * The usage plans and the web ACL's per-IP rule (rate-limit.ts); none when absent. With them, as
   * deployed, an allow that names no usage key is API Gateway's INVALID_API_KEY answer.
   */
  limits?: RateLimiter;
  /** The web ACL's Authorization rules (edge.ts): refused before the authorizer; off when absent. */
  waf?: boolean;
  /** True once the server is shutting down: answers then close their connection. */
  closing?: () => boolean;
}

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
}

/** A REST authorizer's answer: its principal, its policy (checked per method) and its context. */
interface Decision {
  principalId: string;
  statements: Statement[];
  context: Record<string, unknown>;
  usageIdentifierKey?: string;
}

const list = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value) && value.every((v) => typeof v === 'string')
      ? value
      : undefined;

/** An IAM policy answer (`principalId`, `policyDocument`, optional scalar `context`); else a 500. */
function decisionOf(answer: unknown): Decision {
  const record = answer as {
    principalId?: unknown;
    policyDocument?: unknown;
    context?: unknown;
    usageIdentifierKey?: unknown;
  } | null;
  const document = record?.policyDocument as { Statement?: unknown } | undefined;
  const context = record?.context ?? {};
  if (
    typeof record?.principalId !== 'string' ||
    !Array.isArray(document?.Statement) ||
    typeof context !== 'object' ||
    context === null ||
    Array.isArray(context) ||
    !Object.values(context).every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  ) {
    throw new MalformedResult('authorizer answer is not a policy with a scalar context');
  }
  const statements = (document.Statement as unknown[]).map((raw) => {
    const st = raw as { Effect?: unknown; Action?: unknown; Resource?: unknown };
    const Action = list(st.Action);
    const Resource = list(st.Resource);
    if ((st.Effect !== 'Allow' && st.Effect !== 'Deny') || !Action || !Resource) {
      throw new MalformedResult('authorizer policy statement is malformed');
    }
    return { Effect: st.Effect, Action, Resource } as Statement;
  });
  const { usageIdentifierKey } = record;
  return {
    principalId: record.principalId,
    statements,
    context: context as Record<string, unknown>,
    ...(typeof usageIdentifierKey === 'string' ? { usageIdentifierKey } : {}),
  };
}

/** An IAM wildcard pattern as a regular expression: `*` any run, `?` any one character. */
const wildcard = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );

// Compiled once per pattern, not per request: an authorizer's policies repeat a handful of them.
const compiled = new Map<string, RegExp>();
const COMPILED_MAX = 1_000;

/** IAM wildcard match: `*` any run, `?` any one character. */
function matches(pattern: string, value: string): boolean {
  let regexp = compiled.get(pattern);
  if (!regexp) {
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    regexp = wildcard(pattern);
    compiled.set(pattern, regexp);
  }
  return regexp.test(value);
}

const INVOKE = 'execute-api:Invoke';

/** IAM evaluation for one method: an explicit Deny wins, then an Allow, else denied. */
function allows(decision: Decision, methodArn: string): boolean {
  let allowed = false;
  for (const st of decision.statements) {
    if (!st.Action.some((a) => matches(a, INVOKE)) || !st.Resource.some((r) => matches(r, methodArn)))
      continue;
    if (st.Effect === 'Deny') return false;
    allowed = true;
  }
  return allowed;
}

const TOO_LARGE = Symbol('too large');

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * The body, up to `limit` bytes. Past it, reading stops and nothing more is buffered: the
 * caller answers 413 and drops the connection with the rest of the upload unread.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined | typeof TOO_LARGE> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(TOO_LARGE);
  // Neither a length nor chunked: HTTP/1.1 says there is no body (RFC 9112, 6.3).
  if (!hasBody(req)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        resolve(TOO_LARGE);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(size > 0 ? Buffer.concat(chunks, size) : undefined);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => onError(new Error('request closed before its body ended'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const LINGER_MS = 1_000;

/**
 * The rest of an oversized upload stays unread. Node would end the socket and destroy it as soon
 * as the 413 is flushed; with unread bytes the kernel then resets the connection, and a client
 * still uploading can lose the answer. So: half-close (the client reads the 413 and the end of
 * the stream), and only destroy a moment later, still reading nothing.
 */
function lingerOnClose(socket: Socket) {
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** What the gateway reads of a Node request. */
const incomingOf = (req: IncomingMessage): IncomingRequest => ({
  method: req.method ?? 'GET',
  target: req.url ?? '/',
  rawHeaders: req.rawHeaders,
  httpVersion: req.httpVersion,
  remoteAddress: req.socket.remoteAddress,
  localPort: req.socket.localPort ?? 0,
});

/** Sends the answer, unless the response is already gone; `closing`: the server is shutting down. */
function write(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  reply: HttpAnswer,
  closing: boolean,
) {
  if (res.headersSent || res.destroyed) return;
  // One flat list of names and values, written as is: Node builds the header from it directly.
  const headers: string[] = [];
  for (const [name, value] of reply.headers) headers.push(name, value);
  const { body } = reply;
  headers.push(
    'content-length',
    String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    'x-amzn-requestid',
    requestId,
  );
  // Answered before its body was read (refused, or too large): the rest of the upload stays
  // unread and the connection closes behind the answer.
  const cutShort = !req.complete && hasBody(req);
  if (cutShort || closing) headers.push('connection', 'close');
  if (cutShort) {
    lingerOnClose(req.socket);
    // Once the answer is sent, Node's server "dumps" an unread body: it reads the whole upload to
    // throw it away. The connection closes instead, so nothing more is read (Node 20 and 22).
    (req as IncomingMessage & { _dump?: () => void })._dump = () => undefined;
  }
  res.writeHead(reply.statusCode, headers);
  res.end(body);
}

/** The Node request listener that plays API Gateway in front of the given functions. */
export function createListener(config: ListenerConfig) {
  const { logger } = config;
  const limit = config.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  const match = routeMatcher(config.routes);
  let lastBase: { href: string; url: URL } | undefined;
  /** The base URL parsed once while it stays the same (it is one per server). */
  const baseOf = (href: string) => {
    if (lastBase?.href !== href) lastBase = { href, url: new URL(href) };
    return lastBase.url;
  };
  const decisions = new TtlCache<Decision>(
    config.authorizerCacheTtlSeconds * 1000,
    config.authorizerCacheMaxEntries,
  );

  /** Route, size and authorization first, from the headers alone; only then the body. */
  async function answer(req: IncomingMessage, requestId: string): Promise<HttpAnswer> {
    // The web ACL comes first, before API Gateway routes anything (infra/constructs/waf.ts).
    const blocked =
      config.limits?.perAddress(req.socket.remoteAddress) ??
      (config.waf ? refuseAuthorization(req.rawHeaders) : undefined);
    if (blocked) return blocked;
    if (req.headers.host !== undefined && !isValidHost(req.headers.host)) return badRequest(requestId);
    const matched = match(req.method ?? 'GET', splitTarget(req.url ?? '/').encodedPath);
    if (!matched) return missingRoute(requestId);
    const { route } = matched;
    const key = `${req.method} ${route.path}`;
    if (Number(req.headers['content-length']) > limit) return tooLarge(requestId);

    const base = baseOf(config.baseUrl?.() ?? `http://localhost:${req.socket.localPort ?? 0}`);
    const parts: RequestParts = requestParts(
      incomingOf(req),
      { resource: route.path, pathParameters: matched.pathParameters },
      requestId,
      base,
    );
    // Identity source `method.request.header.Authorization`: absent or empty → 401, authorizer not called.
    const identity = req.headers.authorization;
    if (!identity) return unauthorized(requestId);

    const event = authorizerEvent(parts);
    let decision = decisions.get(identity);
    if (!decision) {
      try {
        decision = decisionOf(await config.authorizer(event));
      } catch (error) {
        // The authorizer's way of saying 401 (a REST API contract): fail with exactly `Unauthorized`.
        if (error instanceof Error && error.message === 'Unauthorized') return unauthorized(requestId);
        logger('error', 'local gateway: authorizer failed', { requestId, route: key, error });
        return authorizerFailed(requestId);
      }
      decisions.set(identity, decision);
    }
    // The cached policy is evaluated against this method: an answer naming one route only would
    // refuse the others while cached, as it does on API Gateway.
    if (!allows(decision, event.methodArn)) return forbidden(requestId);
    // Every method requires a usage key (API key source AUTHORIZER): none named, none metered.
    if (config.limits && decision.usageIdentifierKey === undefined) return missingUsageKey(requestId);
    const limited = config.limits?.afterAllow(
      { ...decision.context, usageIdentifierKey: decision.usageIdentifierKey },
      requestId,
    );
    if (limited) return limited;

    const body = await readBody(req, limit);
    if (body === TOO_LARGE) return tooLarge(requestId);
    try {
      return answerFromResult(
        await route.handler(apiEvent(parts, body, decision.principalId, decision.context)),
      );
    } catch (error) {
      logger('error', 'local gateway: function failed', { requestId, route: key, error });
      return badGateway(requestId);
    }
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    answer(req, requestId)
      .catch((error: unknown) => {
        if (!req.complete && req.destroyed) return undefined; // the client went away mid-upload
        logger('error', 'local gateway: request failed', { requestId, error });
        return badGateway(requestId);
      })
      .then((reply) => reply && write(req, res, requestId, reply, config.closing?.() ?? false))
      .catch(() => res.destroy());
  };
}
