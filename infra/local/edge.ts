/**
 * The web ACL's header rules, played locally (infra/constructs/waf.ts): an `Authorization` that
 * came more than once, or is missing or not the exact shape of our tokens, is refused before the
 * authorizer, with the answer WAF sends (infra/gateway-responses.ts `edgeAnswers`: the problem as
 * `application/json`, headers prefixed `x-amzn-waf-`). The per-IP rate rule is rate-limit.ts's.
 */
import { AUTHORIZATION_PATTERN } from '#functions/http/bearer.ts';
import { type EdgeAnswer, type EdgeRule, edgeAnswers, WAF_HEADER_PREFIX } from '../gateway-responses.ts';
import type { HttpAnswer } from './result.ts';

const AUTHORIZATION = new RegExp(AUTHORIZATION_PATTERN);

/** WAF's own answer for a rule: no request id of API Gateway's (the request never reached it). */
export function edgeAnswer(rule: EdgeRule): HttpAnswer {
  const answer: EdgeAnswer = edgeAnswers[rule];
  return {
    statusCode: answer.statusCode,
    headers: [
      ['content-type', 'application/json'],
      ...Object.entries(answer.headers ?? {}).map(
        ([name, value]) => [`${WAF_HEADER_PREFIX}${name}`, value] as [string, string],
      ),
    ],
    body: JSON.stringify(answer.body),
  };
}

/** Every value of one header in Node's raw pairs (name, value, name, value…), any case. */
export function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]?.toLowerCase() === name) values.push(rawHeaders[i + 1] as string);
  return values;
}

/** The rules `authorization-repeated` and `token-shape`, in the web ACL's order; undefined passes. */
export function refuseAuthorization(rawHeaders: readonly string[]): HttpAnswer | undefined {
  const values = headerValues(rawHeaders, 'authorization');
  if (values.length > 1 || values.some((value) => value.includes(',')))
    return edgeAnswer('authorization-repeated');
  if (!AUTHORIZATION.test(values[0] ?? '')) return edgeAnswer('token-shape');
  return undefined;
}
