import * as v from 'valibot';
import type { QueryParam } from '#contract/schemas/query.ts';
import { type FieldError, validationFailed } from './problem.ts';
import type { ApiEvent } from './types.ts';
import { describeIssue, invalidBecause, unique } from './validation.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One `application/x-www-form-urlencoded` name or value, decoded as URLSearchParams does (`+` is a
 * space, a `%` not followed by two hex digits stays as it is) except that bytes which are not UTF-8
 * give `undefined`: URLSearchParams would silently turn them into U+FFFD.
 */
function decodeFormPart(text: string): string | undefined {
  if (!text.includes('%')) return text.replaceAll('+', ' ');
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const hex = char === '%' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      const code = text.codePointAt(i) as number;
      if (code > 0xffff) i++;
      bytes.push(...Buffer.from(char === '+' ? ' ' : String.fromCodePoint(code), 'utf8'));
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/** The query string's name/value pairs in order, and the (raw) names whose text is not UTF-8. */
function queryPairs(raw: string): { pairs: [string, string][]; notUtf8: string[] } {
  const pairs: [string, string][] = [];
  const notUtf8: string[] = [];
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const rawName = at < 0 ? part : part.slice(0, at);
    const name = decodeFormPart(rawName);
    const value = decodeFormPart(at < 0 ? '' : part.slice(at + 1));
    // A nameless parameter is refused for that alone, whatever its value.
    if (name === '' || (name !== undefined && value !== undefined)) pairs.push([name, value ?? '']);
    else notUtf8.push(name ?? rawName);
  }
  return { pairs, notUtf8 };
}

/**
 * Reads the raw query string, not `queryStringParameters`: API Gateway joins repeated parameters
 * with commas there, which would hide `?limit=1&limit=2`. A repeatable parameter's values are
 * joined with commas (so repeating and comma-separating mean the same); any other repeated → 400.
 */
export function parseQuery<S extends v.GenericSchema>(
  schema: S,
  params: Record<string, QueryParam>,
  event: Pick<ApiEvent, 'rawQueryString'>,
): v.InferOutput<S> {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  const { pairs, notUtf8 } = queryPairs(event.rawQueryString ?? '');
  for (const [name, value] of pairs) {
    if (name === '') {
      throw validationFailed('A query parameter has no name.', [
        { path: '(unnamed)', message: 'a query parameter needs a name before its "="' },
      ]);
    }
    const earlier = values.get(name);
    if (earlier === undefined) values.set(name, value);
    else if (Object.hasOwn(params, name) && params[name]?.repeatable) values.set(name, `${earlier},${value}`);
    else repeated.add(name);
  }
  // Postgres cannot hold U+0000 in text: such a value is refused by name, before any statement
  // sees it, alongside whatever else is wrong with the query string.
  const errors: FieldError[] = [
    ...notUtf8.map((path) => ({ path, message: 'must be UTF-8 text once percent-decoded' })),
    ...[...repeated].map((path) => ({ path, message: 'must be given at most once' })),
  ];
  for (const [name, value] of values) {
    if (!value.includes('\u0000')) continue;
    errors.push({ path: name, message: 'must not contain the NUL character (U+0000)' });
    values.delete(name);
  }
  // fromEntries defines own properties, so even `__proto__` is a key the schema sees (and refuses).
  const parsed = v.safeParse(schema, Object.fromEntries(values));
  if (!parsed.success) errors.push(...parsed.issues.map((issue) => describeIssue(issue)));
  if (errors.length > 0)
    throw validationFailed(invalidBecause('query string', unique(errors)), unique(errors));
  return parsed.output;
}
