import type { ApiResult } from '#functions/http/types.ts';

/**
 * Defects these tests found in files this suite does not own. Each is pinned by an `it.fails`
 * test in known-defects.test.ts; once one is fixed, that test fails: delete it and its entry here,
 * and the fuzz properties hold the line again.
 */
export type KnownDefect =
  /** body.ts reports a NUL character at the last key only (`systemPrompt`, `0`, or `` at the root). */
  | 'nul-path'
  /** Unpaired UTF-16 surrogates reach the database: a generic 400 naming no field (jsonb, PGlite). */
  | 'lone-surrogate'
  /** A date or cursor time Postgres cannot hold reaches the database: a generic 400 naming no field. */
  | 'unstorable-time'
  /** query.ts collects parameters in a plain object: `?__proto__=x` vanishes instead of being refused. */
  | 'proto-query-param'
  /** An empty parameter name is reported as `(root)` (validation.ts) or `` when repeated (query.ts). */
  | 'empty-name';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Any unpaired surrogate in the text, or in a string or key of the JSON it holds. */
export function hasLoneSurrogate(raw: string): boolean {
  if (LONE_SURROGATE.test(raw)) return true;
  try {
    return walk(JSON.parse(raw));
  } catch {
    return false;
  }
}

function walk(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(walk);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || walk(v));
  }
  return false;
}

const GENERIC_400 = 'The request breaks a data constraint.';

/** The known defect this answer shows, if it shows one; `input` is what was sent (body or query). */
export function knownDefect(input: string, result: ApiResult): KnownDefect | undefined {
  const names = [...new URLSearchParams(input)].map(([name]) => name);
  if (names.includes('__proto__') && result.statusCode < 500) return 'proto-query-param';
  if (
    /(^|&)=/.test(input) &&
    (result.body.includes('"path":"(root)","message":"is not a known field"') ||
      result.body.includes('"path":""'))
  ) {
    return 'empty-name';
  }
  if (result.statusCode !== 400) return undefined;
  let detail: unknown;
  try {
    detail = (JSON.parse(result.body) as { detail?: unknown }).detail;
  } catch {
    return undefined;
  }
  if (typeof detail !== 'string') return undefined;
  if (detail.startsWith('Strings must not contain the NUL character')) return 'nul-path';
  if (detail === GENERIC_400 && hasLoneSurrogate(input)) return 'lone-surrogate';
  if (detail === GENERIC_400 && /created(After|Before)|cursor/.test(input)) return 'unstorable-time';
  return undefined;
}
