import type { FieldError } from './problem.ts';

// Postgres cannot store U+0000 in text or jsonb, and stores an unpaired UTF-16 surrogate as
// U+FFFD; a number past a double's range parses to Infinity, stored as null: each would turn a
// client's mistake into a 500 or into silently different data.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return undefined;
}

const NOT_A_DOUBLE = 'must be a number within ±1.8e308 (a double), as JSON carries it';

const dotPath = (parts: (string | number)[]) =>
  parts.length === 0 ? '(root)' : parts.map((p) => (p === '' ? '""' : String(p))).join('.');

/** Far deeper than any request schema here (at most 4 levels), far shallower than the stack. */
export const MAX_JSON_DEPTH = 32;

/**
 * Every string, field name and number in a parsed JSON value that could not be stored faithfully; or,
 * for a value nested deeper than MAX_JSON_DEPTH, that one finding. Iterative, so no input can
 * exhaust the stack.
 */
export function unstorableValues(root: unknown): FieldError[] {
  const found: FieldError[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (path.length > MAX_JSON_DEPTH) {
      return [{ path: '(root)', message: `must not nest more than ${MAX_JSON_DEPTH} levels deep` }];
    }
    if (typeof value === 'string') {
      const message = problemOf(value);
      if (message) found.push({ path: dotPath(path), message });
    } else if (typeof value === 'number') {
      // `1e400` parses to Infinity, which JSON and jsonb would hold as null.
      if (!Number.isFinite(value)) found.push({ path: dotPath(path), message: NOT_A_DOUBLE });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        pending.push({ value: item, path: [...path, i] });
      });
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const message = problemOf(key);
        if (message) found.push({ path: dotPath([...path, key]), message: `(the field name) ${message}` });
        else pending.push({ value: item, path: [...path, key] });
      }
    }
  }
  return found;
}
