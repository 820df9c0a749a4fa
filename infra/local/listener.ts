import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { isValidHost } from '#functions/http/host.ts';
import type { Logger } from '#functions/http/log.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { TtlCache } from './cache.ts';
import {
  apiEvent,
  authorizerEvent,
  type IncomingRequest,
  newRequestId,
  requestParts,
  splitTarget,
} from './event.ts';
import type { RateLimiter } from './rate-limit.ts';
import {
  answerFromResult,
  badRequest,
  forbidden,
  type HttpAnswer,
  internalError,
  MalformedResult,
  notFound,
  tooLarge,
  unauthorized,
} from './result.ts';

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
  logger: Logger;
  /** Per-workspace tiers and the per-address authorizer bucket (rate-limit.ts); none when absent. */
  limits?: RateLimiter;
  /** True once the server is shutting down: answers then close their connection. */
  closing?: () => boolean;
}

interface Decision {
  isAuthorized: boolean;
  context: unknown;
}

/** A simple response: `isAuthorized` a boolean, `context` (optional) an object; else a 500. */
function decisionOf(answer: unknown): Decision {
  const record = answer as { isAuthorized?: unknown; context?: unknown } | null;
  const context = record?.context ?? null;
  if (typeof record?.isAuthorized !== 'boolean' || typeof context !== 'object' || Array.isArray(context)) {
    throw new MalformedResult('authorizer answer is not a simple response');
  }
  return { isAuthorized: record.isAuthorized, context };
}

const TOO_LARGE = Symbol('too large');

/**
 * The body, up to `limit` bytes. Past it, reading stops and nothing more is buffered: the
 * caller answers 413 and drops the connection with the rest of the upload unread.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined | typeof TOO_LARGE> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(TOO_LARGE);
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
const incomingOf = (req: IncomingMessage, body: IncomingRequest['body']): IncomingRequest => ({
  method: req.method ?? 'GET',
  target: req.url ?? '/',
  rawHeaders: req.rawHeaders,
  body,
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
  res.statusCode = reply.statusCode;
  for (const [name, value] of reply.headers) res.appendHeader(name, value);
  res.setHeader('content-length', reply.body.length);
  res.setHeader('apigw-requestid', requestId);
  const cutShort = reply.statusCode === 413 && !req.complete;
  if (cutShort || closing) res.setHeader('connection', 'close');
  if (cutShort) lingerOnClose(req.socket);
  res.end(reply.body);
}

/** The Node request listener that plays API Gateway in front of the given functions. */
export function createListener(config: ListenerConfig) {
  const { logger } = config;
  const limit = config.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  const routes = new Map(config.routes.map((route) => [`${route.method} ${route.path}`, route]));
  const decisions = new TtlCache<Decision>(
    config.authorizerCacheTtlSeconds * 1000,
    config.authorizerCacheMaxEntries,
  );

  async function answer(req: IncomingMessage, requestId: string): Promise<HttpAnswer> {
    const body = await readBody(req, limit);
    if (body === TOO_LARGE) return tooLarge();
    // The host becomes the event's domainName, from which handlers build absolute links.
    if (req.headers.host !== undefined && !isValidHost(req.headers.host)) return badRequest();
    const key = `${req.method} ${splitTarget(req.url ?? '/').rawPath}`;
    const route = routes.get(key);
    if (!route) return notFound();

    const parts = requestParts(incomingOf(req, body), key, requestId);
    // Identity source `$request.header.Authorization`: absent or empty → 401, authorizer not called.
    const identity = parts.headers.authorization;
    if (!identity) return unauthorized();

    let decision = decisions.get(identity);
    const throttled = decision
      ? undefined
      : config.limits?.beforeAuthorizer(req.socket.remoteAddress, requestId);
    if (throttled) return throttled;
    if (!decision) {
      try {
        decision = decisionOf(await config.authorizer(authorizerEvent(parts, identity)));
      } catch (error) {
        logger('error', 'local gateway: authorizer failed', { requestId, route: key, error });
        return internalError();
      }
      decisions.set(identity, decision);
    }
    if (!decision.isAuthorized) return forbidden();
    const limited = config.limits?.afterAllow(decision.context, requestId);
    if (limited) return limited;

    try {
      return answerFromResult(await route.handler(apiEvent(parts, body, decision.context)));
    } catch (error) {
      logger('error', 'local gateway: function failed', { requestId, route: key, error });
      return internalError();
    }
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    answer(req, requestId)
      .catch((error: unknown) => {
        if (!req.complete && req.destroyed) return undefined; // the client went away mid-upload
        logger('error', 'local gateway: request failed', { requestId, error });
        return internalError();
      })
      .then((reply) => reply && write(req, res, requestId, reply, config.closing?.() ?? false))
      .catch(() => res.destroy());
  };
}
