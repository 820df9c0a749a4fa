/** One field the API named in a 400: where (`limit`, `version.config.llm.model`) and what is wrong. */
export interface ProblemFieldError {
  path: string;
  message: string;
}

/**
 * Every error answer as one type: the API's RFC 9457 problems as they are, and API Gateway's own
 * `{"message"}` answers (no token, a refused token, no route) mapped onto the same fields.
 */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: ProblemFieldError[];
  /** The answer's request id (body or `x-request-id`), for the logs; empty when none came. */
  readonly requestId: string;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;

  constructor(fields: {
    status: number;
    type?: string;
    title: string;
    detail?: string;
    errors?: ProblemFieldError[];
    requestId?: string;
    retryAfter?: number;
  }) {
    super(`${fields.status} ${fields.title}${fields.detail ? `: ${fields.detail}` : ''}`);
    this.status = fields.status;
    this.type = fields.type ?? 'about:blank';
    this.title = fields.title;
    this.detail = fields.detail ?? '';
    this.errors = fields.errors ?? [];
    this.requestId = fields.requestId ?? '';
    this.retryAfter = fields.retryAfter;
  }

  /**
   * The problem an error answer carries, whatever its shape: a problem, API Gateway's
   * `{"message"}`, or none at all (an empty or HTML body). `body` is the answer already read,
   * parsed when it was JSON.
   */
  static of(response: Response, read: unknown): ApiProblem {
    const body = (read && typeof read === 'object' && !Array.isArray(read) ? read : {}) as Record<
      string,
      unknown
    >;
    const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
    return new ApiProblem({
      status: response.status,
      type: str(body.type),
      title: str(body.title) ?? str(body.message) ?? (response.statusText || `HTTP ${response.status}`),
      detail: str(body.detail) ?? str(body.message),
      errors: Array.isArray(body.errors) ? (body.errors as ProblemFieldError[]) : [],
      requestId: str(body.requestId) ?? response.headers.get('x-request-id') ?? undefined,
      retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
    });
  }
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined otherwise. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
