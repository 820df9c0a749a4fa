import type { HttpProblem } from './problem.ts';
import type { ApiResult } from './types.ts';

/** Headers on every answer: the request id, and nothing cached or sniffed by the way. */
export const baseHeaders = (requestId: string) => ({
  'x-request-id': requestId,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** A body that is already JSON text (a list as the database wrote it): sent as is. */
export const jsonText = (
  requestId: string,
  statusCode: number,
  body: string,
  headers: Record<string, string> = {},
): ApiResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...baseHeaders(requestId), ...headers },
  body,
});

export const json = (
  requestId: string,
  statusCode: number,
  body: unknown,
  headers?: Record<string, string>,
) => jsonText(requestId, statusCode, JSON.stringify(body), headers);

export const problem = (requestId: string, p: HttpProblem): ApiResult => ({
  statusCode: p.status,
  headers: { 'content-type': 'application/problem+json', ...baseHeaders(requestId), ...p.headers },
  body: JSON.stringify({
    type: p.type,
    title: p.title,
    status: p.status,
    detail: p.detail,
    ...(p.errors ? { errors: p.errors } : {}),
    requestId,
  }),
});
