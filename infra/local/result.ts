import { validateHeaderName, validateHeaderValue } from 'node:http';

/** An HTTP answer ready to write: header pairs (repeatable, e.g. set-cookie) and the body bytes. */
export interface HttpAnswer {
  statusCode: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** API Gateway's own answers, byte for byte: JSON `{"message":…}`. */
const gatewayAnswer = (statusCode: number, message: string): HttpAnswer => ({
  statusCode,
  headers: [['content-type', 'application/json']],
  body: Buffer.from(JSON.stringify({ message })),
});

export const badRequest = () => gatewayAnswer(400, 'Bad Request');
export const notFound = () => gatewayAnswer(404, 'Not Found');
export const unauthorized = () => gatewayAnswer(401, 'Unauthorized');
export const forbidden = () => gatewayAnswer(403, 'Forbidden');
export const tooLarge = () => gatewayAnswer(413, 'Request Entity Too Large');
export const internalError = () => gatewayAnswer(500, 'Internal Server Error');

/** A function answer API Gateway cannot map; it answers 500 instead. */
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
 * Payload format 2.0 response mapping. An object with `statusCode` is taken as the structured
 * response; anything else is inferred: 200, `content-type: application/json`, and the body is
 * the value itself (a string as is, any other value as its JSON). Node's runtime sends
 * `undefined` as `null`.
 */
export function answerFromResult(result: unknown): HttpAnswer {
  if (!isRecord(result) || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: [['content-type', 'application/json']], body: Buffer.from(body) };
  }
  const { statusCode, headers = {}, cookies = [], body, isBase64Encoded = false } = result;
  if (
    typeof statusCode !== 'number' ||
    !Number.isInteger(statusCode) ||
    statusCode < 200 ||
    statusCode > 599
  ) {
    throw new MalformedResult('statusCode is not an HTTP status');
  }
  if (!isRecord(headers)) throw new MalformedResult('headers is not an object');
  if (!Array.isArray(cookies) || !cookies.every((c) => typeof c === 'string')) {
    throw new MalformedResult('cookies is not an array of strings');
  }
  if (body !== undefined && body !== null && typeof body !== 'string') {
    throw new MalformedResult('body is not a string');
  }
  if (typeof isBase64Encoded !== 'boolean') throw new MalformedResult('isBase64Encoded is not a boolean');
  const pairs: Array<[string, string]> = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'content-length')
    .map(([name, value]) => header(name, value));
  // Each cookie becomes its own set-cookie header.
  for (const cookie of cookies as string[]) pairs.push(header('set-cookie', cookie));
  const text = body ?? '';
  return {
    statusCode,
    headers: pairs,
    body: isBase64Encoded ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8'),
  };
}
