import { retryAfterSeconds } from './problem.ts';

export interface RetryOptions {
  /** Further attempts after the first (default 3; 0 turns retrying off). */
  retries?: number;
  /** The first backoff when the answer names no delay, doubled each time (default 250 ms). */
  baseDelayMs?: number;
  /** No wait is longer than this, even if `Retry-After` asks for more (default 30 s). */
  maxDelayMs?: number;
  /** How to wait; tests pass one that records the delay. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRIABLE = new Set([429, 503]);
const wait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * A fetch that retries 429 and 503 answers: after `Retry-After` when the answer gives one, else
 * after an exponential backoff with jitter. Only requests that are safe to repeat are retried: reads,
 * and writes that carry an `Idempotency-Key` (the API replays the first answer to a repeat).
 */
export function retryingFetch(options: RetryOptions = {}, base: typeof fetch = globalThis.fetch) {
  const { retries = 3, baseDelayMs = 250, maxDelayMs = 30_000, sleep = wait } = options;
  return async (request: Request): Promise<Response> => {
    const repeatable = request.method === 'GET' || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      // A request's body can be read once: each attempt sends a copy.
      const response = await base(repeatable && attempt < retries ? request.clone() : request);
      if (!repeatable || attempt >= retries || !RETRIABLE.has(response.status)) return response;
      const asked = retryAfterSeconds(response.headers.get('retry-after'));
      const backoff = baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
      await response.body?.cancel();
      await sleep(Math.min(maxDelayMs, asked === undefined ? backoff : asked * 1000));
    }
  };
}
