import { INVALID_KEY, problemType, titleOf } from '#functions/http/problem.ts';

/**
 * API Gateway's own answers (REST API gateway responses), reshaped into RFC 9457 problems with the
 * headers every answer of ours carries. One list for both sides: the stack deploys it
 * (infra/constructs/api.ts) and the local gateway renders the same templates (infra/local/result.ts).
 */
export interface GatewayResponse {
  /** API Gateway's response type (`ResponseType` in aws-cdk-lib/aws-apigateway). */
  readonly type: string;
  /**
   * The status, and the body's `status` (a template cannot read the one API Gateway chose). Absent
   * only on the two defaults: they keep API Gateway's own status (a 403, 404, 415… that has no entry
   * of its own stays what it is) and their body leaves `status` out.
   */
  readonly statusCode?: number;
  readonly title: string;
  readonly slug: string;
  /** JSON text of the `detail` member; may use `$context.error.messageString` (already quoted). */
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const quoted = (text: string) => JSON.stringify(text);

/** Retry-After of API Gateway's throttling 429 (seconds). */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
/** Retry-After of the daily quota's 429 (seconds). */
export const QUOTA_RETRY_AFTER_SECONDS = 3600;
/** Retry-After while a workspace's usage key is missing (seconds). */
export const USAGE_KEY_RETRY_AFTER_SECONDS = 30;

export const gatewayResponses = [
  {
    type: 'UNAUTHORIZED',
    statusCode: 401,
    title: 'Unauthorized',
    slug: 'unauthenticated',
    detail: quoted('Send an API key: Authorization: Bearer <key>.'),
    headers: { 'www-authenticate': 'Bearer' },
  },
  {
    // The authorizer's Deny; a route answers the same for a key revoked since its allow was cached.
    type: 'ACCESS_DENIED',
    statusCode: INVALID_KEY.status,
    title: titleOf(INVALID_KEY.status),
    slug: INVALID_KEY.slug,
    detail: quoted(INVALID_KEY.detail),
  },
  {
    // What a REST API answers for a method and path it has no resource for.
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: 404,
    title: 'Not Found',
    slug: 'not-found',
    detail: quoted('No operation at this method and path.'),
  },
  {
    type: 'REQUEST_TOO_LARGE',
    statusCode: 413,
    title: 'Content Too Large',
    slug: 'body-too-large',
    detail: quoted('The request body exceeds the API’s 10 MB limit.'),
  },
  {
    // A gateway response can only carry a fixed Retry-After: the bucket refills within a second.
    type: 'THROTTLED',
    statusCode: 429,
    title: 'Too Many Requests',
    slug: 'rate-limited',
    detail: quoted('Too many requests; slow down and retry.'),
    headers: { 'retry-after': String(THROTTLED_RETRY_AFTER_SECONDS) },
  },
  {
    // The quota resets at 00:00 UTC; a fixed value cannot say when, so: try again in an hour.
    type: 'QUOTA_EXCEEDED',
    statusCode: 429,
    title: 'Too Many Requests',
    slug: 'quota-exceeded',
    detail: quoted('The daily request quota is used up; it resets at 00:00 UTC.'),
    headers: { 'retry-after': String(QUOTA_RETRY_AFTER_SECONDS) },
  },
  {
    // Callers never send an API key: API Gateway found no usage key for the authorizer's answer, so
    // the workspace's key of its tier's pool is not in place yet (functions/usage-plan-keys.ts). Ours
    // to repair (the admin function's next command or `usage.reconcile`), so a 503, never a refusal.
    type: 'INVALID_API_KEY',
    statusCode: 503,
    title: 'Service Unavailable',
    slug: 'limits-unavailable',
    detail: quoted('This workspace’s rate limits are being set up; retry shortly.'),
    headers: { 'retry-after': String(USAGE_KEY_RETRY_AFTER_SECONDS) },
  },
  {
    type: 'WAF_FILTERED',
    statusCode: 403,
    title: 'Forbidden',
    slug: 'request-blocked',
    detail: quoted('The request was blocked by the web application firewall.'),
  },
  {
    type: 'INTEGRATION_TIMEOUT',
    statusCode: 504,
    title: 'Gateway Timeout',
    slug: 'gateway-timeout',
    detail: quoted('The operation did not answer in time; retry shortly.'),
  },
  {
    type: 'DEFAULT_4XX',
    title: 'Request Refused',
    slug: 'gateway-refused',
    detail: '$context.error.messageString',
  },
  {
    type: 'DEFAULT_5XX',
    title: 'Gateway Error',
    slug: 'gateway-error',
    detail: '$context.error.messageString',
  },
] as const satisfies readonly GatewayResponse[];

export type GatewayResponseType = (typeof gatewayResponses)[number]['type'];

/** Headers on every gateway response, as on our own answers (functions/http/respond.ts). */
export const GATEWAY_RESPONSE_HEADERS = {
  'content-type': 'application/problem+json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** The response template (`application/json`): a problem whose `requestId` is API Gateway's. */
export function problemTemplate(response: GatewayResponse): string {
  return (
    `{"type":${quoted(problemType(response.slug))},"title":${quoted(response.title)},` +
    (response.statusCode === undefined ? '' : `"status":${response.statusCode},`) +
    `"detail":${response.detail},"requestId":"$context.requestId"}`
  );
}

/**
 * The web ACL's own answers (infra/constructs/waf.ts): WAF sends a custom body as it is (no
 * request id, no variables) with the content type `application/json`, and prefixes any header it is
 * given with `x-amzn-waf-`. Each names the rule (`blockedBy`) so a client tells a WAF block from
 * an authorization refusal. The local gateway sends the same (infra/local/edge.ts).
 */
export interface EdgeAnswer {
  readonly statusCode: number;
  readonly body: Readonly<Record<string, unknown>>;
  /** Sent by WAF as `x-amzn-waf-<name>`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Seconds a client blocked by a rate-based rule waits: WAF re-evaluates its rates every 30 s or so. */
export const WAF_RETRY_AFTER_SECONDS = 60;

export const WAF_HEADER_PREFIX = 'x-amzn-waf-';

const edge = (
  statusCode: number,
  slug: string,
  detail: string,
  blockedBy: string,
  headers?: Record<string, string>,
) => ({
  statusCode,
  body: { type: problemType(slug), title: titleOf(statusCode), status: statusCode, detail, blockedBy },
  ...(headers ? { headers } : {}),
});

/** The managed rule groups, in the web ACL's order: each blocks with its own answer. */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesCommonRuleSet',
] as const;

export const edgeAnswers = {
  'rate-per-ip': edge(429, 'rate-limited', 'Too many requests from this address; slow down.', 'rate-per-ip', {
    'retry-after': String(WAF_RETRY_AFTER_SECONDS),
  }),
  'rate-per-authorization': edge(
    429,
    'rate-limited',
    'Too many requests with this API key; slow down.',
    'rate-per-authorization',
    { 'retry-after': String(WAF_RETRY_AFTER_SECONDS) },
  ),
  'authorization-repeated': edge(
    400,
    'duplicate-header',
    'The Authorization header came more than once; send it once.',
    'authorization-repeated',
  ),
  'token-shape': edge(
    401,
    'unauthenticated',
    'Send an API key: Authorization: Bearer <key> (vak_ and 43 base64url characters).',
    'token-shape',
  ),
  ...(Object.fromEntries(
    MANAGED_RULE_GROUPS.map((group) => [
      group,
      edge(
        403,
        'request-blocked',
        `The request was blocked by the web application firewall (${group}).`,
        group,
      ),
    ]),
  ) as unknown as Record<(typeof MANAGED_RULE_GROUPS)[number], EdgeAnswer>),
} as const satisfies Record<string, EdgeAnswer>;

export type EdgeRule = keyof typeof edgeAnswers;
