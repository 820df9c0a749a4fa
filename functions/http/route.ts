import type * as v from 'valibot';
import type { Route } from '#contract/routes.ts';
import { type PathParamName, type PathParamsOf, pathParamNames } from '#contract/schemas/path.ts';
import type { RouteQuery } from '#contract/schemas/query.ts';
import type { DatabaseClient, SqlRunner } from '#db/database.ts';
import { isDatabaseUnavailable, sqlState } from '#db/errors.ts';
import { type CallingKey, KEY_NOT_LIVE } from '#db/queries/api-keys.ts';
import { principalFor } from './bearer.ts';
import { parseJsonBody, parseOptionalJsonBody } from './body.ts';
import type { Logger } from './log.ts';
import { pathParam } from './path.ts';
import {
  conflict,
  databaseUnavailable,
  HttpProblem,
  internalError,
  invalidKey,
  missingScope,
  problemType,
  repeatedHeader,
  unauthenticated,
} from './problem.ts';
import { parseQuery } from './query.ts';
import { releaseMetrics } from './release-metrics.ts';
import { problem } from './respond.ts';
import { type ApiEvent, type ApiHandler, type ApiResult, headerCount, headerOf } from './types.ts';
import { holdToTier, type WorkspaceLimits } from './workspace-limit.ts';

/**
 * The caller, as the authorizer resolved it (perhaps in an answer cached a while ago). Every query
 * is scoped by `workspaceId` and guarded by `keyId`: a key revoked or expired since fails the
 * statement, which answers the authorizer's own 403 (`toProblem`).
 */
export interface Caller extends CallingKey {
  principalId: string;
  scopes: ReadonlySet<string>;
  /** The workspace's tier as the authorizer read it (contract/tiers.ts). */
  tier?: string;
}

/**
 * A route as its handler declares it: its row of the route table (contract/routes.ts) and what
 * `route()` reads before the handler runs. The path parameters are the path's `{name}`s; `query`
 * and `body` are optional, and a route declaring neither leaves them to the handler. Each schema is
 * named in the handler's own declaration, not in the route table every bundle imports: a bundle
 * builds only the schemas its route reads (docs/architecture.md, "Adding an operation").
 */
export interface Declaration extends Route {
  /** The query string (`noQuery`: none taken, each one given refused by name). */
  readonly query?: RouteQuery;
  /** The JSON body's schema. */
  readonly body?: v.GenericSchema;
  /** No body, or an empty one, reads as `{}` (a transition taking no fields). */
  readonly bodyOptional?: boolean;
  /** The media types the body may come as; default `application/json`. */
  readonly mediaTypes?: readonly string[];
}

export interface Request<D extends Route = Route> {
  event: ApiEvent;
  requestId: string;
  caller: Caller;
  /** Runs this attempt's statements (a read that lost its connection is run again on a fresh one). */
  runner: SqlRunner;
  /** The path's parameters, each checked against contract/schemas/path.ts (else 404). */
  params: { readonly [K in PathParamsOf<D['path']>]: string };
  /** The declared query, parsed (400 naming each bad parameter). */
  query: D extends { query: RouteQuery<infer S> } ? v.InferOutput<S> : unknown;
  /** The declared body, parsed (415, 413, 400). */
  body: D extends { body: infer S extends v.GenericSchema } ? v.InferOutput<S> : unknown;
}

/**
 * What the declaration states, in the order a client's mistakes are answered: the path (404), the
 * query string (400), then the body (415, 413, 400).
 */
function declaredInputs(def: Declaration, paramNames: readonly PathParamName[], event: ApiEvent) {
  const params: Record<string, string> = {};
  for (const name of paramNames) params[name] = pathParam(event, name);
  const query = def.query && parseQuery(def.query.schema, def.query.params, event);
  const body =
    def.body &&
    (def.bodyOptional
      ? parseOptionalJsonBody(def.body, event)
      : parseJsonBody(def.body, event, def.mediaTypes));
  return { params, query, body };
}

const callerFrom = (p: {
  workspaceId: string;
  principalId: string;
  keyId: string;
  scopes: Iterable<string>;
  tier?: unknown;
}): Caller => ({
  workspaceId: p.workspaceId,
  principalId: p.principalId,
  keyId: p.keyId,
  scopes: new Set(p.scopes),
  ...(typeof p.tier === 'string' ? { tier: p.tier } : {}),
});

/**
 * The authorizer's answer; or, when it could not reach the database, our own lookup now, answered
 * as the authorizer would have: API Gateway calls it only for a non-empty Authorization header, and
 * its deny is the 403 `invalid-key` (an absent header is API Gateway's 401 before any of this).
 */
async function callerOf(event: ApiEvent, sql: SqlRunner): Promise<Caller | undefined> {
  const ctx = event.requestContext?.authorizer;
  if (ctx?.deferred) {
    const header = headerOf(event.headers, 'authorization');
    if (!header) return undefined;
    const principal = await principalFor(sql, header);
    if (!principal) throw invalidKey();
    return callerFrom(principal);
  }
  const { workspaceId, principalId, keyId, scopes, tier } = ctx ?? {};
  if (!workspaceId || !principalId || !keyId) return undefined;
  return callerFrom({
    workspaceId: String(workspaceId),
    principalId: String(principalId),
    keyId: String(keyId),
    scopes: String(scopes ?? '').split(' '),
    tier,
  });
}

/**
 * Wraps an operation: checks the caller holds the route's scope and (with `workspaceLimits`) that
 * its workspace is within its tier, then turns whatever is thrown into
 * a problem response. Nothing below here formats errors, and nothing a client sent can reach a 5xx
 * except a database outage (503) or a bug (500, logged, body without details).
 */
export function route<D extends Declaration>(
  def: D,
  {
    database,
    logger,
    workspaceLimits,
  }: { database: DatabaseClient; logger: Logger; workspaceLimits?: WorkspaceLimits },
  operation: (req: Request<D>) => Promise<ApiResult>,
): ApiHandler {
  const metricFields = releaseMetrics();
  const paramNames = pathParamNames(def.path) as PathParamName[];
  return async (event) => {
    const requestId = event.requestContext?.requestId ?? 'unknown';
    const started = performance.now();
    let result: ApiResult;
    try {
      // The authorizer saw one of them (API Gateway passes it one value): refuse, whichever it was.
      if (headerCount(event.multiValueHeaders, 'authorization') > 1) throw repeatedHeader('Authorization');
      // Within the request deadline: a hung database must be a 503 well before the function's
      // own timeout. A GET only reads, so it may run again after a dropped connection.
      result = await database.run(
        async (sql) => {
          const caller = await callerOf(event, sql);
          if (!caller) throw unauthenticated();
          if (!caller.scopes.has(def.scope)) throw missingScope(def.scope);
          if (workspaceLimits) {
            const arrivedAt = event.requestContext?.requestTimeEpoch;
            await holdToTier(sql, workspaceLimits, caller.workspaceId, caller.tier, arrivedAt);
          }
          const inputs = declaredInputs(def, paramNames, event) as Pick<
            Request<D>,
            'params' | 'query' | 'body'
          >;
          return operation({ event, requestId, caller, runner: sql, ...inputs });
        },
        { repeatable: def.method === 'GET' },
      );
    } catch (error) {
      result = problem(requestId, toProblem(error, logger, { requestId, route: def.name }));
    }
    const ms = Math.round(performance.now() - started);
    // Deployed, the same line is the version's 5xx and latency metric (embedded metric format).
    logger('info', 'request', {
      requestId,
      route: def.name,
      status: result.statusCode,
      ms,
      ...metricFields(result.statusCode, ms),
    });
    return result;
  };
}

function toProblem(error: unknown, logger: Logger, context: Record<string, unknown>): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const state = sqlState(error);
  // The statement's guard: the key was revoked or expired after the authorizer's allow was cached.
  if (state === KEY_NOT_LIVE) return invalidKey();
  if (isDatabaseUnavailable(error)) {
    logger('warn', 'database unavailable', { ...context, error });
    return databaseUnavailable();
  }
  // Safety net: validation should have caught these; never let a constraint become a 500.
  if (state === '23505') {
    logger('warn', 'unique violation past validation', { ...context, error });
    return conflict('The request conflicts with existing data.');
  }
  if (state?.startsWith('22') || state === '23514' || state === '23502' || state === '23503') {
    logger('warn', 'constraint violation past validation', { ...context, error });
    return new HttpProblem(400, problemType('validation'), 'The request breaks a data constraint.');
  }
  logger('error', 'unhandled error', {
    ...context,
    error,
    stack: error instanceof Error ? error.stack : undefined,
  });
  return internalError();
}
