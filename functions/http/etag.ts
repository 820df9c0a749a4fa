import { preconditionRequired, validationFailed } from './problem.ts';
import { baseHeaders } from './respond.ts';
import type { ApiEvent, ApiResult } from './types.ts';

/** An `If-Match` header, parsed (RFC 9110 §13.1.1). */
export type IfMatch =
  | { kind: 'absent' }
  /** `*`: matches whenever the resource exists. */
  | { kind: 'any' }
  /** The strong tags listed, quotes included; weak ones (`W/"…"`) are dropped: they never match. */
  | { kind: 'tags'; tags: readonly string[] }
  | { kind: 'malformed' };

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3).
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/**
 * Parses `If-Match` values (one per occurrence of the header; a list may also be split across
 * occurrences). Empty list elements are ignored, as RFC 9110 §5.6.1 asks; `*` must stand alone.
 */
export function parseIfMatch(values: readonly string[] | undefined): IfMatch {
  if (values === undefined || values.length === 0) return { kind: 'absent' };
  const elements = values
    .flatMap((value) => value.split(','))
    .map((element) => element.trim())
    .filter((element) => element !== '');
  if (elements.length === 0) return { kind: 'malformed' };
  if (elements.includes('*')) return elements.length === 1 ? { kind: 'any' } : { kind: 'malformed' };
  const tags: string[] = [];
  for (const element of elements) {
    const match = ENTITY_TAG.exec(element);
    if (!match) return { kind: 'malformed' };
    if (!match[1]) tags.push(match[2] as string);
  }
  return { kind: 'tags', tags };
}

/**
 * Whether the condition lets a change to a resource whose current ETag is `current` (undefined: no
 * such resource) go ahead: strong comparison, so a weak tag matches nothing. Absent allows.
 */
export function ifMatchAllows(condition: IfMatch, current: string | undefined): boolean {
  switch (condition.kind) {
    case 'absent':
      return true;
    case 'any':
      return current !== undefined;
    case 'tags':
      return current !== undefined && condition.tags.includes(current);
    case 'malformed':
      return false;
  }
}

/** Every value of a request header, any case, from `multiValueHeaders` (else `headers`). */
function headerValues(event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>, name: string) {
  const wanted = name.toLowerCase();
  const found: string[] = [];
  const multi = event.multiValueHeaders ?? {};
  for (const [key, values] of Object.entries(multi))
    if (key.toLowerCase() === wanted) found.push(...(values ?? []));
  if (found.length > 0 || Object.keys(multi).length > 0) return found.length > 0 ? found : undefined;
  for (const [key, value] of Object.entries(event.headers ?? {}))
    if (key.toLowerCase() === wanted && value !== undefined) found.push(value);
  return found.length > 0 ? found : undefined;
}

/**
 * The request's `If-Match`, required (a change to an agent without it could overwrite another
 * client's): 428 when absent, 400 naming the header when it is not a valid list of entity tags.
 */
export function requiredIfMatch(
  event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>,
  what: string,
): Exclude<IfMatch, { kind: 'absent' } | { kind: 'malformed' }> {
  const condition = parseIfMatch(headerValues(event, 'if-match'));
  if (condition.kind === 'absent')
    throw preconditionRequired(`A change to ${what} needs If-Match with its current ETag.`);
  if (condition.kind === 'malformed')
    throw validationFailed('The If-Match header is invalid.', [
      { path: 'If-Match', message: 'must be * or a list of quoted entity tags' },
    ]);
  return condition;
}

/** The request's `If-Match` where a change may go without one: undefined when absent, 400 when malformed. */
export function optionalIfMatch(
  event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>,
): Exclude<IfMatch, { kind: 'absent' } | { kind: 'malformed' }> | undefined {
  const values = headerValues(event, 'if-match');
  return values === undefined ? undefined : requiredIfMatch(event, 'the agent');
}

/**
 * The strong tags a change's statement compares the current ETag with (db/queries/agent-changes.ts);
 * undefined when any ETag will do (`*`, or no condition). Only weak tags: an empty list, which none matches.
 */
export const matchingTags = (condition: IfMatch | undefined): readonly string[] | undefined =>
  condition?.kind === 'tags' ? condition.tags : undefined;

/**
 * Whether `If-None-Match` (RFC 9110 §13.1.2) names the current ETag: `*`, or any tag of the list
 * by weak comparison (`W/"x"` matches `"x"`). A header that is not a valid list matches nothing:
 * the full answer, as to a client that sent none.
 */
export function noneMatchHits(
  event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>,
  current: string,
): boolean {
  const values = headerValues(event, 'if-none-match');
  if (values === undefined) return false;
  const elements = values
    .flatMap((value) => value.split(','))
    .map((element) => element.trim())
    .filter((element) => element !== '');
  if (elements.length === 1 && elements[0] === '*') return true;
  const opaque = current.replace(/^W\//, '');
  return elements.some((element) => ENTITY_TAG.exec(element)?.[2] === opaque);
}

/** 304 Not Modified: no body, the ETag the client holds (RFC 9110 §15.4.5). */
export const notModified = (requestId: string, etag: string): ApiResult => ({
  statusCode: 304,
  headers: { ...baseHeaders(requestId), etag },
  body: '',
});
