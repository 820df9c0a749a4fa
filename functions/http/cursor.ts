import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import * as v from 'valibot';
import { Id, Instant } from '#contract/schemas/common.ts';
import type { FeedPosition } from '#db/queries/events.ts';
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
    throw invalid('was issued for another workspace, list, order or filters');
  }
  return { createdAt: parsed.output.c, id: parsed.output.i };
}

// The feed cursor's key, per workspace: a cursor decrypts (and authenticates) only in the workspace
// it was issued to. Derived from the workspace id, so it is opaque rather than secret (docs/decisions.md).
const feedKey = (workspaceId: string) =>
  createHash('sha256').update(`feed-cursor.v2.${workspaceId}`).digest();

/**
 * A feed position as an opaque cursor bound to the workspace: AES-256-GCM under the workspace's
 * key, its nonce derived from the position (one position, one cursor; two positions, two nonces).
 * Not bound to the type filter: a position in the feed means the same for any filter.
 */
export function encodeFeedCursor(position: FeedPosition | null, workspaceId: string): string {
  if (!position) return '';
  const key = feedKey(workspaceId);
  const plain = Buffer.alloc(16);
  plain.writeBigInt64BE(BigInt(position.txid), 0);
  plain.writeBigInt64BE(BigInt(position.seq), 8);
  const nonce = createHmac('sha256', key).update(plain).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The position a feed cursor holds; null for the empty cursor (from the oldest event kept). */
export function decodeFeedCursor(text: string, workspaceId: string): FeedPosition | null {
  if (text === '') return null;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== 44 || bytes.toString('base64url') !== text) throw feedCursorRefused();
  const decipher = createDecipheriv('aes-256-gcm', feedKey(workspaceId), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(28));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(bytes.subarray(12, 28)), decipher.final()]);
  } catch {
    throw feedCursorRefused();
  }
  const txid = plain.readBigInt64BE(0);
  const seq = plain.readBigInt64BE(8);
  if (
    txid < 0n ||
    seq < 0n ||
    txid > BigInt(Number.MAX_SAFE_INTEGER) ||
    seq > BigInt(Number.MAX_SAFE_INTEGER)
  )
    throw feedCursorRefused();
  return { txid: Number(txid), seq: Number(seq) };
}

const feedCursorRefused = () => invalid('is not a cursor this API issued to this workspace, or was altered');
