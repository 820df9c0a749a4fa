import type { FieldError } from './problem.ts';

// Postgres cannot store U+0000 in text or jsonb, and stores an unpaired UTF-16 surrogate as
// U+FFFD: both would turn a client's mistake into a 500 or into silently different data.
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  if (NUL.test(text)) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return undefined;
}

const dotPath = (parts: (string | number)[]) =>
  parts.length === 0 ? '(root)' : parts.map((p) => (p === '' ? '""' : String(p))).join('.');

/** Every string and field name in a parsed JSON value that Postgres could not store faithfully. */
export function unstorableText(value: unknown, path: (string | number)[] = [], found: FieldError[] = []) {
  if (typeof value === 'string') {
    const message = problemOf(value);
    if (message) found.push({ path: dotPath(path), message });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableText(item, [...path, i], found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const message = problemOf(key);
      if (message) found.push({ path: dotPath([...path, key]), message: `(the field name) ${message}` });
      else unstorableText(item, [...path, key], found);
    }
  }
  return found;
}
