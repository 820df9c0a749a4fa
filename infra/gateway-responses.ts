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
   * Always set, so every body is a complete problem with its `status` (a template cannot read the
   * status API Gateway chose): the two defaults answer 400 and 500 for whatever has no entry.
   */
  readonly statusCode: number;
  readonly title: string;
  readonly slug: string;
  /** JSON text of the `detail` member; may use `$context.error.messageString` (already quoted). */
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const quoted = (text: string) => JSON.stringify(text);

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
    type: 'THROTTLED',
    statusCode: 429,
    title: 'Too Many Requests',
    slug: 'rate-limited',
    detail: quoted('Too many requests; slow down and retry.'),
  },
  {
    type: 'QUOTA_EXCEEDED',
    statusCode: 429,
    title: 'Too Many Requests',
    slug: 'quota-exceeded',
    detail: quoted('The daily request quota is used up.'),
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
    statusCode: 400,
    title: 'Bad Request',
    slug: 'gateway-refused',
    detail: '$context.error.messageString',
  },
  {
    type: 'DEFAULT_5XX',
    statusCode: 500,
    title: 'Internal Server Error',
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
    `{"type":${quoted(problemType(response.slug))},"title":${quoted(response.title)},"status":${response.statusCode},` +
    `"detail":${response.detail},"requestId":"$context.requestId"}`
  );
}
