import type * as v from 'valibot';
import { MAX_BODY_BYTES } from '#contract/limits.ts';
import { bodyTooLarge, malformedJson, unsupportedMediaType, validationFailed } from './problem.ts';
import { unstorableText } from './text-safety.ts';
import type { ApiEvent } from './types.ts';
import { parseOrProblem } from './validation.ts';

/** `application/json`, with parameters such as `; charset=utf-8` allowed. */
const isJson = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/json\s*(;.*)?$/i.test(contentType.trim());

/**
 * The JSON body of a request, checked in order of cost: media type, size (before any parsing),
 * syntax, text Postgres can store faithfully, then the schema.
 */
export function parseJsonBody<S extends v.GenericSchema>(schema: S, event: ApiEvent): v.InferOutput<S> {
  const contentType = event.headers?.['content-type'];
  if (!isJson(contentType)) throw unsupportedMediaType(contentType);
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
  if (bytes > MAX_BODY_BYTES) throw bodyTooLarge(MAX_BODY_BYTES);
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformedJson();
  }
  const unstorable = unstorableText(value);
  if (unstorable.length > 0) {
    throw validationFailed('Strings must be valid Unicode text without the NUL character.', unstorable);
  }
  return parseOrProblem(schema, value, 'request body');
}
