/**
 * The authorizer result cache: answers keyed by identity source value, kept for a fixed TTL.
 * Every entry lives for the same TTL, so insertion order is expiry order: expired entries are
 * always at the front and are dropped from there; when full, the oldest entry goes first.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries = 10_000,
    readonly now: () => number = Date.now,
  ) {}

  get size() {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    // A TTL of 0 disables caching, as it does for API Gateway.
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return;
    this.#entries.delete(key);
    this.#evictExpired();
    while (this.#entries.size >= this.maxEntries) this.#dropOldest();
    this.#entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  #evictExpired() {
    const now = this.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
  }

  #dropOldest() {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}
