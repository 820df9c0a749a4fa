import * as v from 'valibot';
import { expect } from 'vitest';
import { Problem } from '#contract/schemas/problem.ts';
import type { ApiResult } from '#functions/http/types.ts';

/** An agent's ETag as api.md defines it from the answer: `"<id>.<updatedAt in epoch ms>"`. */
export const agentEtag = (agent: { id: string; updatedAt: string }): string =>
  `"${agent.id}.${Date.parse(agent.updatedAt)}"`;

/** The body parsed and checked against its response schema: every test response is a contract test. */
export function bodyOf<S extends v.GenericSchema>(schema: S, result: ApiResult): v.InferOutput<S> {
  const parsed = v.safeParse(schema, JSON.parse(result.body));
  if (!parsed.success) {
    throw new Error(`response does not match its schema: ${JSON.stringify(v.flatten(parsed.issues))}`);
  }
  return parsed.output;
}

/** A problem response: its status, media type, RFC 9457 body, and no leak of internals. */
export function expectProblem(result: ApiResult, status: number, paths: string[] = []) {
  expect(result.statusCode).toBe(status);
  expect(result.headers['content-type']).toBe('application/problem+json');
  const body = bodyOf(Problem, result);
  expect(body.status).toBe(status);
  expect(body.requestId).toBe(result.headers['x-request-id']);
  expect(result.body).not.toMatch(/\bat \w+ \(|select |insert |postgres|drizzle|pglite/i);
  if (paths.length > 0) expect((body.errors ?? []).map((e) => e.path).sort()).toEqual([...paths].sort());
  return body;
}
