import * as v from 'valibot';
import { IdempotencyKey } from '#contract/schemas/headers.ts';
import type { DatabaseClient, SqlRunner } from '#db/database.ts';
import { claimKey, completeKey, releaseKey } from '#db/queries/idempotency.ts';
import { fingerprint } from './canonical.ts';
import { HttpProblem, problemType, repeatedHeader, validationFailed } from './problem.ts';
import { baseHeaders, problem } from './respond.ts';
import type { Request } from './route.ts';
import { type ApiResult, headerCount, headerOf } from './types.ts';

/** The optional `Idempotency-Key` header, as the contract's `IdempotencyKey` defines it. */
export function idempotencyKeyOf(req: Request): string | undefined {
  // Two keys: which one the client meant to retry under is not ours to guess.
  if (headerCount(req.event.multiValueHeaders, 'idempotency-key') > 1)
    throw repeatedHeader('Idempotency-Key');
  const key = headerOf(req.event.headers, 'idempotency-key');
  if (key === undefined) return undefined;
  const parsed = v.safeParse(IdempotencyKey, key, { abortEarly: true });
  if (!parsed.success) {
    const message = parsed.issues[0].message;
    throw validationFailed(`The Idempotency-Key header ${message}.`, [{ path: 'Idempotency-Key', message }]);
  }
  return parsed.output;
}

/**
 * A stored problem, told as this request's: its `requestId` is the one in this answer's
 * `x-request-id` header and in this request's log line (the first answer's id would match neither).
 */
function withRequestId(problemText: string, requestId: string): string {
  return JSON.stringify({ ...(JSON.parse(problemText) as object), requestId });
}

// Headers every answer gets afresh (baseHeaders, the media type): not part of what is replayed.
const FRESH_HEADERS = new Set(['content-type', 'x-request-id', 'cache-control', 'x-content-type-options']);
const ownHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !FRESH_HEADERS.has(name)));

/**
 * Runs `work` at most once per key and body within the key's lifetime (per workspace): a repeat
 * gets the first answer again, a different body under the same key 422, and a repeat while the
 * first is still running 409 (`body` is what identifies the request: the parsed body, and for an
 * operation on one resource its id too, so one key cannot replay one agent's answer for another). The work and the recorded answer commit together; a 4xx answer
 * (e.g. a slug conflict) is recorded too, a failure is not, so the client may retry it: the claim
 * is released on a connection of its own, since the failure may have broken this one.
 */
export async function idempotent(
  database: DatabaseClient,
  req: Request,
  key: string,
  body: unknown,
  work: (tx: SqlRunner) => Promise<ApiResult>,
): Promise<ApiResult> {
  const { runner: sql } = req;
  const { workspaceId } = req.caller;
  const claim = await claimKey(sql, req.caller, key, fingerprint(body));
  switch (claim.kind) {
    case 'mismatch':
      throw new HttpProblem(
        422,
        problemType('idempotency-key-reused'),
        'This Idempotency-Key was already used with a different request body.',
      );
    case 'in-flight':
      throw new HttpProblem(
        409,
        problemType('idempotency-key-in-flight'),
        'A request with this Idempotency-Key is still being processed; retry shortly.',
      );
    case 'replay':
      return {
        statusCode: claim.status,
        headers: {
          'content-type': claim.status >= 400 ? 'application/problem+json' : 'application/json',
          ...baseHeaders(req.requestId),
          ...claim.headers,
          'idempotent-replayed': 'true',
        },
        body: claim.status >= 400 ? withRequestId(claim.body, req.requestId) : claim.body,
      };
  }
  try {
    return await sql.transaction(async (tx) => {
      let result: ApiResult;
      try {
        // A savepoint, so a failed attempt leaves the transaction usable for recording its answer.
        result = await tx.transaction(work);
      } catch (error) {
        if (!(error instanceof HttpProblem) || error.status >= 500) throw error;
        result = problem(req.requestId, error);
      }
      const headers = result.statusCode < 400 ? ownHeaders(result.headers) : {};
      await completeKey(tx, workspaceId, key, result.statusCode, result.body, headers);
      return result;
    });
  } catch (error) {
    await database.run((fresh) => releaseKey(fresh, workspaceId, key), { repeatable: true }).catch(() => {});
    throw error;
  }
}

/**
 * The `Idempotency-Key` of a create that requires one (POST /sessions, POST /ledger/credits):
 * absent is a 400 naming the header, as the IETF draft on the header advises (428 is for
 * conditional requests, `If-Match`). `twice`: what a retry without it could do, as the route's
 * OpenAPI parameter says it (`record a second session`).
 */
export function requiredIdempotencyKey(req: Request, twice: string): string {
  const key = idempotencyKeyOf(req);
  if (key === undefined) {
    const message = `is required: a retry must not ${twice}`;
    throw validationFailed(`The Idempotency-Key header ${message}.`, [{ path: 'Idempotency-Key', message }]);
  }
  return key;
}
