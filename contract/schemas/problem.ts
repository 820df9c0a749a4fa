import * as v from 'valibot';

/** RFC 9457 problem details, as every error response carries them. */
export const Problem = v.strictObject({
  type: v.string(),
  title: v.string(),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  detail: v.string(),
  errors: v.optional(v.array(v.strictObject({ path: v.string(), message: v.string() }))),
  requestId: v.string(),
});

export type Problem = v.InferOutput<typeof Problem>;

/**
 * A block by the web application firewall (infra/gateway-responses.ts, `edgeAnswers`): WAF sends
 * a fixed body as `application/json`, so no request id, and `blockedBy` names the rule.
 */
export const EdgeProblem = v.strictObject({
  type: v.string(),
  title: v.string(),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  detail: v.string(),
  blockedBy: v.string(),
});
