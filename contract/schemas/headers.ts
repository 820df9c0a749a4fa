import * as v from 'valibot';
import { IDEMPOTENCY_KEY_MAX } from '../limits.ts';

/** The optional `Idempotency-Key` header of a create: 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters. */
const idempotencyKeyMessage = `must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters`;
export const IdempotencyKey = v.pipe(
  v.string(),
  v.minLength(1, idempotencyKeyMessage),
  v.maxLength(IDEMPOTENCY_KEY_MAX, idempotencyKeyMessage),
  v.regex(/^[\x21-\x7e]+$/, idempotencyKeyMessage),
);
