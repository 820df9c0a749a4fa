import { describe, expect, it } from 'vitest';
import { formatInterval, ratioInterval } from '../../bench/intervals.ts';
import type { Slice } from '../../bench/measure.ts';

/** Rounds of two targets, taken in turns as measure.ts takes them. */
const rounds = (pairs: Array<[number, number]>): Slice[] =>
  pairs.flatMap(([api, driver], i) => {
    const round = [
      { target: 'api', rps: api, p50: 1 },
      { target: 'driver', rps: driver, p50: 1 },
    ];
    return i % 2 === 0 ? round : round.reverse();
  });

describe('ratioInterval', () => {
  it('is one point when every round gives the same ratio', () => {
    const [low, high] =
      ratioInterval(
        rounds([
          [900, 1000],
          [1800, 2000],
          [450, 500],
          [90, 100],
        ]),
        'api',
        'driver',
      ) ?? [];
    expect(low).toBeCloseTo(0.9, 10);
    expect(high).toBeCloseTo(0.9, 10);
  });

  it('spans the pooled ratio when rounds disagree, and is the same for the same slices', () => {
    const slices = rounds([
      [3000, 5000],
      [4400, 4400],
      [3700, 4500],
      [4100, 4300],
      [2900, 5500],
      [4400, 4500],
    ]);
    const interval = ratioInterval(slices, 'api', 'driver');
    const pooled = (3000 + 4400 + 3700 + 4100 + 2900 + 4400) / (5000 + 4400 + 4500 + 4300 + 5500 + 4500);
    expect(interval).toBeDefined();
    const [low = 0, high = 0] = interval ?? [];
    expect(low).toBeLessThan(pooled);
    expect(high).toBeGreaterThan(pooled);
    expect(low).toBeGreaterThanOrEqual(2900 / 5500);
    expect(high).toBeLessThanOrEqual(1);
    expect(ratioInterval(slices, 'api', 'driver')).toEqual(interval);
    expect(formatInterval(interval)).toBe(` (90 % over rounds ${low.toFixed(2)}–${high.toFixed(2)})`);
  });

  it('says nothing from fewer than three rounds, or of a target not measured', () => {
    expect(
      ratioInterval(
        rounds([
          [1, 1],
          [1, 1],
        ]),
        'api',
        'driver',
      ),
    ).toBeUndefined();
    expect(
      ratioInterval(
        rounds([
          [1, 1],
          [1, 1],
          [1, 1],
        ]),
        'api',
        'baseline',
      ),
    ).toBeUndefined();
    expect(formatInterval(undefined)).toBe('');
  });
});
