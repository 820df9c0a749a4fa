import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { Id, Instant } from '#contract/schemas/common.ts';
import { validationFailed } from './problem.ts';

/** Where a keyset page ends: the last row's sort key. */
export interface Position {
  createdAt: string;
  id: string;
}

const checksum = (payload: string) =>
  createHash('sha256').update(`cursor.v1.${payload}`).digest('base64url').slice(0, 16);

/**
 * What a cursor holds, checked as strictly as any input before it reaches SQL (the checksum is
 * public): the contract's own timestamp and id, the timestamp a real instant Postgres can read.
 */
const CursorPayload = v.strictObject({
  c: Instant,
  i: Id,
  b: v.string(),
});

/**
 * An opaque cursor: the position plus the fingerprint of the list, order and filters it was made
 * for, with a checksum so a damaged or edited cursor is refused rather than misread. It is not a
 * secret: a forged cursor can only start a page elsewhere in the caller's own workspace, as
 * `offset` can.
 */
export function encodeCursor(position: Position, binding: string): string {
  const payload: v.InferInput<typeof CursorPayload> = { c: position.createdAt, i: position.id, b: binding };
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${checksum(text)}`;
}

const invalid = (message: string) =>
  validationFailed(`The cursor is invalid: ${message}.`, [{ path: 'cursor', message }]);
const notOurs = () => invalid('is not a cursor this API issued, or was altered');

/** The position a cursor holds; `undefined` for the empty cursor that starts cursor paging. */
export function decodeCursor(text: string, binding: string): Position | undefined {
  if (text === '') return undefined;
  const [payload, sum, ...rest] = text.split('.');
  if (!payload || !sum || rest.length > 0 || checksum(payload) !== sum) throw notOurs();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  const parsed = v.safeParse(CursorPayload, decoded);
  if (!parsed.success) throw notOurs();
  if (parsed.output.b !== binding) {
    throw invalid('was issued for another list, another order or other filters');
  }
  return { createdAt: parsed.output.c, id: parsed.output.i };
}
