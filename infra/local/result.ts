import { validateHeaderName, validateHeaderValue } from 'node:http';
import {
  GATEWAY_RESPONSE_HEADERS,
  type GatewayResponse,
  type GatewayResponseType,
  gatewayResponses,
  problemTemplate,
} from '../gateway-responses.ts';

/**
 * An HTTP answer ready to write: header pairs (repeatable, e.g. set-cookie) and the body, as text
 * (UTF-8) or bytes (a base64 answer decoded). Text goes out with the header in one write.
 */
export interface HttpAnswer {
  statusCode: number;
  headers: Array<[string, string]>;
  body: string | Buffer;
}

/**
 * API Gateway's own answer of a type, as the deployed gateway responses shape it: the same
 * template rendered with this request's id and API Gateway's message for it.
 */
export function gatewayAnswer(
  type: GatewayResponseType,
  requestId: string,
  message: string,
  /** API Gateway's own status, which the two defaults keep. */
  status = type === 'DEFAULT_5XX' ? 500 : 400,
): HttpAnswer {
  const response: GatewayResponse = gatewayResponses.find((r) => r.type === type) ?? gatewayResponses[0];
  const extra = 'headers' in response ? response.headers : {};
  const body = problemTemplate(response)
    .replaceAll('$context.requestId', requestId)
    .replaceAll('$context.error.messageString', JSON.stringify(message));
  return {
    statusCode: response.statusCode ?? status,
    headers: [...Object.entries({ ...GATEWAY_RESPONSE_HEADERS, ...extra }), ['x-request-id', requestId]],
    body,
  };
}

// API Gateway's own messages (`$context.error.message`) for each.
export const badRequest = (id: string) => gatewayAnswer('DEFAULT_4XX', id, 'Bad Request');
export const missingRoute = (id: string) =>
  gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', id, 'Missing Authentication Token');
export const unauthorized = (id: string) => gatewayAnswer('UNAUTHORIZED', id, 'Unauthorized');
export const forbidden = (id: string) =>
  gatewayAnswer('ACCESS_DENIED', id, 'User is not authorized to access this resource with an explicit deny');
export const tooLarge = (id: string) => gatewayAnswer('REQUEST_TOO_LARGE', id, 'Request Too Long');
/** The authorizer's allow named no usage key, which every method of ours requires. */
export const missingUsageKey = (id: string) => gatewayAnswer('INVALID_API_KEY', id, 'Forbidden');
/** API Gateway's 429s of the usage plans. */
export const throttled = (id: string) => gatewayAnswer('THROTTLED', id, 'Too Many Requests');
export const quotaExceeded = (id: string) => gatewayAnswer('QUOTA_EXCEEDED', id, 'Limit Exceeded');
/** The authorizer failed or answered something that is no policy (AUTHORIZER_FAILURE et al.). */
export const authorizerFailed = (id: string) => gatewayAnswer('DEFAULT_5XX', id, 'Internal server error');
/** The function failed or answered something a proxy integration cannot map: API Gateway's 502, kept. */
export const badGateway = (id: string) => gatewayAnswer('DEFAULT_5XX', id, 'Internal server error', 502);

/** A function or authorizer answer API Gateway cannot map. */
export class MalformedResult extends Error {
  override name = 'MalformedResult';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A header pair Node can write; anything else would fail mid-answer, so it is malformed. */
function header(name: string, value: unknown): [string, string] {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new MalformedResult(`header ${name} is not a scalar`);
  }
  try {
    validateHeaderName(name);
    validateHeaderValue(name, String(value));
  } catch {
    throw new MalformedResult(`header ${name} cannot be sent`);
  }
  return [name.toLowerCase(), String(value)];
}

/**
 * Lambda proxy (payload 1.0) response mapping: an object with a numeric `statusCode`, optional
 * `headers` and `multiValueHeaders` (merged), a string `body`, `isBase64Encoded`. Anything else is
 * a malformed answer, which a REST API turns into a 502.
 */
export function answerFromResult(result: unknown): HttpAnswer {
  if (!isRecord(result)) throw new MalformedResult('the answer is not an object');
  const { statusCode, headers = {}, multiValueHeaders = {}, body, isBase64Encoded = false } = result;
  const status = typeof statusCode === 'string' && /^\d+$/.test(statusCode) ? Number(statusCode) : statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new MalformedResult('statusCode is not an HTTP status');
  }
  if (!isRecord(headers ?? {})) throw new MalformedResult('headers is not an object');
  if (!isRecord(multiValueHeaders ?? {})) throw new MalformedResult('multiValueHeaders is not an object');
  if (body !== undefined && body !== null && typeof body !== 'string') {
    throw new MalformedResult('body is not a string');
  }
  if (typeof isBase64Encoded !== 'boolean') throw new MalformedResult('isBase64Encoded is not a boolean');
  const pairs: Array<[string, string]> = [];
  const multi = multiValueHeaders as Record<string, unknown>;
  for (const [name, values] of Object.entries(multi)) {
    if (!Array.isArray(values)) throw new MalformedResult(`multiValueHeaders.${name} is not an array`);
    for (const value of values) pairs.push(header(name, value));
  }
  for (const [name, value] of Object.entries((headers ?? {}) as Record<string, unknown>)) {
    // A header in both: multiValueHeaders wins, as API Gateway merges them.
    if (!Object.keys(multi).some((m) => m.toLowerCase() === name.toLowerCase()))
      pairs.push(header(name, value));
  }
  const text = body ?? '';
  return {
    statusCode: status,
    headers: pairs.filter(([name]) => name !== 'content-length'),
    body: isBase64Encoded ? Buffer.from(text, 'base64') : text,
  };
}
