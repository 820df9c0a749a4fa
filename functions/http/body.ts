import type * as v from 'valibot';
import { MAX_BODY_BYTES } from '#contract/limits.ts';
import { duplicateMembers } from './json-members.ts';
import {
  bodyTooLarge,
  HttpProblem,
  malformedJson,
  problemType,
  unsupportedMediaType,
  validationFailed,
} from './problem.ts';
import { unstorableValues } from './text-safety.ts';
import { type ApiEvent, headerOf } from './types.ts';
import { invalidBecause, parseOrProblem } from './validation.ts';

/** One of `types` (JSON), whose only parameter may be `charset=utf-8` (any case, quoted or not). */
function isJsonInUtf8(contentType: string | undefined, types: readonly string[]): boolean {
  if (contentType === undefined) return false;
  const [type, ...params] = contentType.split(';').map((part) => part.trim());
  if (!types.includes(type?.toLowerCase() ?? '')) return false;
  return params.every((param) => /^charset\s*=\s*("?)utf-8\1$/i.test(param));
}

const unsupportedEncoding = (encoding: string) =>
  new HttpProblem(
    415,
    problemType('unsupported-media-type'),
    `Content-Encoding ${encoding} is not supported: send the body uncompressed.`,
    undefined,
    // RFC 7694: the codings the server does accept.
    { 'accept-encoding': 'identity' },
  );

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes a base64 text decodes to, counted without decoding: three per four characters, less
 * one per `=` of padding (rounding 4/3 up refused a body of exactly the limit).
 */
function base64Bytes(text: string): number {
  const trimmed = text.replace(/\s+$/, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.floor((trimmed.length * 3) / 4) - padding;
}

const JSON_ONLY = ['application/json'] as const;

/**
 * The JSON body of a request, checked in order of cost: media type (`application/json`, or one of
 * `mediaTypes`) and coding, size (before any parsing), UTF-8, syntax, depth and text Postgres can
 * store faithfully, unique member names, then the schema.
 */
export function parseJsonBody<S extends v.GenericSchema>(
  schema: S,
  event: ApiEvent,
  mediaTypes: readonly string[] = JSON_ONLY,
): v.InferOutput<S> {
  const contentType = headerOf(event.headers, 'content-type');
  if (!isJsonInUtf8(contentType, mediaTypes)) throw unsupportedMediaType(contentType, mediaTypes);
  const encoding = headerOf(event.headers, 'content-encoding')?.trim();
  if (encoding && encoding.toLowerCase() !== 'identity') throw unsupportedEncoding(encoding);
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? base64Bytes(raw) : Buffer.byteLength(raw);
  if (bytes > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);

  let text = raw;
  if (event.isBase64Encoded) {
    try {
      text = utf8.decode(Buffer.from(raw, 'base64'));
    } catch {
      throw new HttpProblem(
        400,
        problemType('malformed-json'),
        'The request body is not valid UTF-8, the only encoding JSON may use.',
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformedJson();
  }
  const unstorable = unstorableValues(value);
  if (unstorable.length > 0) throw validationFailed(invalidBecause('request body', unstorable), unstorable);
  const duplicates = duplicateMembers(text);
  if (duplicates.length > 0) throw validationFailed(invalidBecause('request body', duplicates), duplicates);
  return parseOrProblem(schema, value, 'request body');
}

/**
 * A body that may be left out (a transition taking no fields): none, or an empty one (whatever its
 * Content-Type), is read as `{}`; one that is sent is checked as `parseJsonBody` checks it.
 */
export function parseOptionalJsonBody<S extends v.GenericSchema>(
  schema: S,
  event: ApiEvent,
): v.InferOutput<S> {
  const absent = (event.body ?? '') === '';
  return absent ? parseOrProblem(schema, {}, 'request body') : parseJsonBody(schema, event);
}
