/** One entry per offending field: where (dot path) and what is wrong with it. */
export interface FieldError {
  path: string;
  message: string;
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase a problem of this status carries as its `title`. */
export const titleOf = (status: number) => titles[status] ?? 'Error';

/**
 * An answer that is not a success, thrown from anywhere below a handler and turned into an RFC 9457
 * body by `route()`. `type` is a stable, documented identifier (see README, "Errors").
 */
export class HttpProblem extends Error {
  readonly title: string;
  constructor(
    readonly status: number,
    readonly type: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.title = titleOf(status);
  }
}

const TYPE_BASE = 'https://voice-agent-admin.dev/problems/';
export const problemType = (slug: string) => `${TYPE_BASE}${slug}`;

export const validationFailed = (detail: string, errors: FieldError[]) =>
  new HttpProblem(400, problemType('validation'), detail, errors);
export const malformedJson = () =>
  new HttpProblem(400, problemType('malformed-json'), 'The request body is not valid JSON.');
export const unsupportedMediaType = (
  received: string | undefined,
  expected: readonly string[] = ['application/json'],
) =>
  new HttpProblem(
    415,
    problemType('unsupported-media-type'),
    `Content-Type must be ${expected.join(' or ')}${received ? `, not ${received}` : ''}.`,
  );
export const bodyTooLarge = (limit: number) =>
  new HttpProblem(413, problemType('body-too-large'), `The request body exceeds ${limit} bytes.`);
// RFC 6750: what a bearer-token resource answers on 401, and on 403 for a missing scope.
export const missingScope = (scope: string) =>
  new HttpProblem(
    403,
    problemType('insufficient-scope'),
    `This API key lacks the scope "${scope}".`,
    undefined,
    {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    },
  );
/**
 * The key is unknown, revoked or expired. One answer, two places: API Gateway's for the
 * authorizer's Deny (ACCESS_DENIED, infra/gateway-responses.ts renders it from this), and a route's
 * when its statement found the calling key no longer live (`invalidKey`), so a client cannot tell
 * whether a cached allow was in the way.
 */
export const INVALID_KEY = {
  status: 403,
  slug: 'invalid-key',
  detail: 'The API key is unknown, revoked or expired.',
} as const;
export const invalidKey = () =>
  new HttpProblem(INVALID_KEY.status, problemType(INVALID_KEY.slug), INVALID_KEY.detail);
/** A header that must come once (Authorization, Idempotency-Key) came more than once: which one counts is not ours to guess. */
export const repeatedHeader = (name: string) =>
  new HttpProblem(
    400,
    problemType('duplicate-header'),
    `The ${name} header came more than once; send it once.`,
    [{ path: `headers.${name.toLowerCase()}`, message: 'must be sent once' }],
  );
export const unauthenticated = () =>
  new HttpProblem(
    401,
    problemType('unauthenticated'),
    'No authenticated workspace for this request.',
    undefined,
    {
      'www-authenticate': 'Bearer',
    },
  );
/**
 * No such resource for this caller: an unknown id, a malformed one, and another workspace's alike
 * (the same answer, so it reveals nothing about other workspaces).
 */
export const notFound = (detail: string) => new HttpProblem(404, problemType('resource-not-found'), detail);
export const conflict = (detail: string, errors?: FieldError[]) =>
  new HttpProblem(409, problemType('conflict'), detail, errors);
/** RFC 9110 `If-Match` did not match the resource's current ETag (a stale copy): 412. */
export const preconditionFailed = (detail: string) =>
  new HttpProblem(412, problemType('precondition-failed'), detail);
/** RFC 6585: a change that needs `If-Match` was sent without one: 428. */
export const preconditionRequired = (detail: string) =>
  new HttpProblem(428, problemType('precondition-required'), detail);
export const databaseUnavailable = () =>
  new HttpProblem(
    503,
    problemType('database-unavailable'),
    'The database is unavailable; retry shortly.',
    undefined,
    {
      'retry-after': '5',
    },
  );
/** Over a rate or quota limit (contract/tiers.ts); `retryAfterSeconds` says when to try again. */
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new HttpProblem(429, problemType('rate-limited'), detail, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
/** The workspace's daily quota is used up (the type API Gateway's QUOTA_EXCEEDED answer has). */
export const quotaExceeded = (detail: string, retryAfterSeconds: number) =>
  new HttpProblem(429, problemType('quota-exceeded'), detail, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
export const internalError = () =>
  new HttpProblem(500, problemType('internal'), 'An unexpected error occurred; it has been logged.');
