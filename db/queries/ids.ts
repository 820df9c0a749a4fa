import { createHash, randomFillSync } from 'node:crypto';

/**
 * New identifiers for the statements that insert rows: cuid2's format (24 characters, a lowercase
 * letter, then base 36) and its construction (a random first letter; SHA3-512 over the time, a
 * random salt, a per-process counter starting at a random value and a fingerprint of the host;
 * the digest in base 36, its leading characters dropped), with Node's native SHA3 and random
 * bytes instead of @paralleldrive/cuid2's JavaScript SHA3, bignumber.js and one Web Crypto call
 * per salt character, which made one id cost milliseconds (docs/decisions.md, "Ids").
 */
const LENGTH = 24;

/** Random bytes drawn in blocks: one system call per 256 ids rather than one per byte. */
const pool = Buffer.alloc(4096);
let next = pool.length;
function randomBytes(n: number): Buffer {
  if (next + n > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += n;
  return pool.subarray(next - n, next);
}

/** A uniformly random letter a–z (bytes of 234 and above redrawn: 234 = 9 × 26). */
function randomLetter(): string {
  for (;;) {
    const byte = randomBytes(1)[0] as number;
    if (byte < 234) return String.fromCharCode(97 + (byte % 26));
  }
}

const sha3 = (input: string) => createHash('sha3-512').update(input).digest('hex');

/** cuid2's: ~22k hosts before a 50 % chance that two start their counters at the same value. */
const INITIAL_COUNT_MAX = 476_782_367;

/**
 * The process's counter and fingerprint (its global names and 32 bytes of randomness, hashed, as
 * cuid2 makes it), drawn with the first id rather than at import: the first SHA3 and random draw
 * set up OpenSSL's digest and generator, which a bundle that imports this module only to read
 * (the ledger's) would otherwise pay at every cold start.
 */
let host: { counter: number; fingerprint: string } | undefined;
function hostState() {
  host ??= {
    counter: randomBytes(4).readUInt32BE(0) % INITIAL_COUNT_MAX,
    fingerprint: sha3(Object.keys(globalThis).toString() + randomBytes(32).toString('hex')).slice(0, 32),
  };
  return host;
}

/** A new id: 24 characters, cuid2's format. */
export function createId(): string {
  const state = hostState();
  const time = Date.now().toString(36);
  const count = (state.counter++).toString(36);
  // 16 bytes (128 bits), about cuid2's 24 base-36 characters (124 bits).
  const salt = randomBytes(16).toString('hex');
  // A 512-bit digest is at most 100 base-36 digits (99 most often); the first two are skewed (a
  // digest's leading digit is small more often), so they are dropped, as cuid2 drops them.
  const digits = BigInt(`0x${sha3(time + salt + count + state.fingerprint)}`).toString(36);
  return randomLetter() + digits.slice(2, LENGTH + 1);
}

/** The id maker, for the callers that awaited cuid2's lazy load. */
export function idMaker(): Promise<() => string> {
  return Promise.resolve(createId);
}
