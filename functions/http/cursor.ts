import { createHash } from 'node:crypto';
import { validationFailed } from './problem.ts';

/** Where a keyset page ends: the last row's sort key. */
export interface Position {
  createdAt: string;
  id: string;
}

const checksum = (payload: string) =>
  createHash('sha256').update(`cursor.v1.${payload}`).digest('base64url').slice(0, 16);

/**
 * An opaque cursor: the position plus the fingerprint of the order and filters it was made for,
 * with a checksum so a damaged or edited cursor is refused rather than misread. It is not a secret:
 * a forged cursor can only start a page elsewhere in the caller's own workspace, as `offset` can.
 */
export function encodeCursor(position: Position, binding: string): string {
  const payload = Buffer.from(JSON.stringify({ c: position.createdAt, i: position.id, b: binding })).toString(
    'base64url',
  );
  return `${payload}.${checksum(payload)}`;
}

const invalid = (message: string) =>
  validationFailed(`The cursor is invalid: ${message}.`, [{ path: 'cursor', message }]);

/** The position a cursor holds; `undefined` for the empty cursor that starts cursor paging. */
export function decodeCursor(text: string, binding: string): Position | undefined {
  if (text === '') return undefined;
  const [payload, sum, ...rest] = text.split('.');
  if (!payload || !sum || rest.length > 0 || checksum(payload) !== sum) {
    throw invalid('is not a cursor this API issued, or was altered');
  }
  let decoded: { c?: unknown; i?: unknown; b?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('is not a cursor this API issued, or was altered');
  }
  // The checksum is public: check the fields as strictly as any input before they reach SQL.
  const c = decoded.c;
  const wellFormed =
    typeof c === 'string' &&
    /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(c) &&
    !Number.isNaN(Date.parse(c)) &&
    new Date(c).toISOString() === c &&
    typeof decoded.i === 'string' &&
    /^[a-z0-9]{1,24}$/.test(decoded.i);
  if (!wellFormed) {
    throw invalid('is not a cursor this API issued, or was altered');
  }
  if (decoded.b !== binding) throw invalid('was issued for a different order or different filters');
  return { createdAt: c as string, id: decoded.i as string };
}
