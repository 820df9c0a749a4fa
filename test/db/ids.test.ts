import { isCuid } from '@paralleldrive/cuid2';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Id } from '#contract/schemas/common.ts';
import { createId, idMaker } from '#db/queries/ids.ts';

describe('new ids', () => {
  it("have cuid2's format: 24 characters, a lowercase letter, then base 36, which isCuid and the contract's Id accept", () => {
    for (let i = 0; i < 10_000; i++) {
      const id = createId();
      expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
      expect(isCuid(id)).toBe(true);
      expect(v.is(Id, id)).toBe(true);
    }
  });

  it('are unique over 1,000,000 made in one process within the same milliseconds', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000_000; i++) seen.add(createId());
    expect(seen.size).toBe(1_000_000);
    // ~15 s alone on this 2-core machine, several times that beside other work.
  }, 300_000);

  it('spread their characters evenly: every letter first, every base-36 digit at every later position', () => {
    // A skewed position (cuid2 drops the digest's leading digits for that reason) would show here.
    const n = 36_000;
    const first = new Map<string, number>();
    const later = Array.from({ length: 23 }, () => new Map<string, number>());
    for (let i = 0; i < n; i++) {
      const id = createId();
      first.set(id[0] as string, (first.get(id[0] as string) ?? 0) + 1);
      for (let p = 1; p < 24; p++)
        later[p - 1]?.set(id[p] as string, (later[p - 1]?.get(id[p] as string) ?? 0) + 1);
    }
    expect(first.size).toBe(26);
    // Expected 1,385 a letter and 1,000 a digit; ±25 % is far beyond chance (σ ≈ 36 and 31).
    for (const count of first.values()) expect(Math.abs(count / (n / 26) - 1)).toBeLessThan(0.25);
    for (const position of later) {
      expect(position.size).toBe(36);
      for (const count of position.values()) expect(Math.abs(count / (n / 36) - 1)).toBeLessThan(0.25);
    }
  });

  it('come from idMaker as from createId', async () => {
    const make = await idMaker();
    expect(make).toBe(createId);
  });
});
