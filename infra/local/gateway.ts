import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUTHORIZER_CACHE_TTL_SECONDS, authorizer, routeList } from '#contract/routes.ts';
import type { Deps } from '#functions/deps.ts';
import type { ApiEvent, AuthorizerEvent } from '#functions/http/types.ts';
import { listen } from './listen.ts';
import { createListener, type GatewayRoute } from './listener.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { StaticFile } from './reference-page.ts';

export interface GatewayOptions {
  deps: Deps;
  /** 0 (the default) picks any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default AUTHORIZER_CACHE_TTL_SECONDS, as deployed; 0 disables the cache. */
  authorizerCacheTtlSeconds?: number;
  /**
   * Files served under /docs/ without authorization (`npm start`'s reference page). A local
   * convenience only: the deployed API has no such route, and none unless this is given.
   */
  docs?: Record<string, StaticFile>;
  /**
   * The deployed limits, played locally (rate-limit.ts `createRateLimiter()`), and each workspace's
   * own in the functions, with the same tiers (unless `deps` names its own); off when absent.
   */
  limits?: RateLimiter;
  /** The web ACL's Authorization rules (edge.ts), as on a durable stage; off when absent. */
  waf?: boolean;
  /**
   * The API's public base URL (default: the URL it listens on): `Link` headers and the events'
   * `domainName` are built from it, never from the client's `Host`.
   */
  baseUrl?: string;
}

export interface Gateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** How long close() lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;

/** The function a route table entry deploys: its module's `build(deps)`, as tests build it too. */
async function buildEntry<F>(entry: string, deps: Deps): Promise<F> {
  const module = (await import(pathToFileURL(resolve(ROOT, entry)).href)) as { build?: unknown };
  if (typeof module.build !== 'function') throw new Error(`${entry} does not export build(deps)`);
  return module.build(deps) as F;
}

/** Answers a GET/HEAD under /docs from `files`; false leaves the request to the API. */
function serveDocs(files: Record<string, StaticFile>, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !(path === '/docs' || path.startsWith('/docs/')))
    return false;
  if (path === '/docs') {
    res.writeHead(308, { location: '/docs/' }).end();
    return true;
  }
  const file = files[path === '/docs/' ? 'index.html' : path.slice('/docs/'.length)];
  if (!file) return false;
  res.writeHead(200, {
    'content-type': file.contentType,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : file.body);
  return true;
}

/**
 * Serves the route table over HTTP the way API Gateway's REST API does: the authorizer and
 * the handlers are the deployed functions, built over `deps`.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const deps: Deps = options.limits
    ? { workspaceLimits: { tiers: options.limits.tiers }, ...options.deps }
    : options.deps;
  const routes: GatewayRoute[] = await Promise.all(
    routeList.map(async (route) => ({
      method: route.method,
      path: route.path,
      handler: await buildEntry<(event: ApiEvent) => Promise<unknown>>(route.entry, deps),
    })),
  );
  const authorize = await buildEntry<(event: AuthorizerEvent) => Promise<unknown>>(authorizer.entry, deps);

  let closing: Promise<void> | undefined;
  let url: string | undefined;
  const listener = createListener({
    routes,
    authorizer: authorize,
    authorizerCacheTtlSeconds: options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS,
    logger: deps.logger,
    limits: options.limits,
    waf: options.waf,
    closing: () => closing !== undefined,
    baseUrl: () => options.baseUrl ?? url,
  });
  const { docs } = options;
  const server = createServer(
    docs ? (req, res) => serveDocs(docs, req, res) || listener(req, res) : listener,
  );

  url = await listen(server, options.port, options.host);

  /** Stops accepting, closes idle keep-alive sockets, lets in-flight answers finish, then resolves. */
  const close = () => {
    closing ??= new Promise<void>((done, fail) => {
      server.close((error) => (error ? fail(error) : done()));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    });
    return closing;
  };

  return { url, server, close };
}
