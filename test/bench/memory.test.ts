import { describe, expect, it } from 'vitest';
import type { MemorySample } from '../../bench/gateway-process.ts';
import { memoryHalves } from '../../bench/report.ts';

/** One sample a second: RSS, and what V8 holds, from the function of the second. */
const series = (seconds: number, held: (t: number) => number): MemorySample[] =>
  Array.from({ length: seconds }, (_, t) => [t, 200, held(t)]);

describe('the gateway memory budget', () => {
  it('reads a sawtooth over a steady live set as flat, whichever half the peaks fall in', () => {
    const sawtooth = series(60, (t) => 20 + (t % 7) * 5 + (t > 30 && t % 7 === 6 ? 30 : 0));
    expect(memoryHalves(sawtooth, 'held')?.floorGrowth).toBeCloseTo(0, 5);
  });

  it('reads a live set that grows as growth', () => {
    const leak = series(60, (t) => 20 + t * 0.5 + (t % 7) * 5);
    expect(memoryHalves(leak, 'held')?.floorGrowth).toBeGreaterThan(0.05);
  });

  it('reads collections that caught more pages in flight as flat, and a retained set that grows as growth', () => {
    // What each full collection keeps: 20 MiB retained, and up to 5 pages of 2 MiB in flight; more of
    // them in the second half (the load's bursts) lift its low percentiles, not its least.
    const afterGc = (retained: (t: number) => number) =>
      series(80, (t) => retained(t) + 2 * (t < 40 ? t % 4 : t % 10 === 0 ? 0 : 3 + (t % 3)));
    const flat = memoryHalves(
      afterGc(() => 20),
      'held',
      2,
      0,
    );
    expect(flat?.floorGrowth).toBe(0);
    expect(
      memoryHalves(
        afterGc(() => 20),
        'held',
        2,
      )?.floorGrowth,
    ).toBeGreaterThan(0.05);
    expect(
      memoryHalves(
        afterGc((t) => 20 + t * 0.05),
        'held',
        2,
        0,
      )?.floorGrowth,
    ).toBeGreaterThan(0.05);
  });

  it('says nothing with fewer samples than asked for in each half', () => {
    const steady = (seconds: number) => series(seconds, () => 20);
    expect(memoryHalves(steady(7), 'held')).toBeUndefined();
    expect(memoryHalves(steady(4), 'held', 2)?.floorGrowth).toBe(0);
    expect(memoryHalves(steady(3), 'held', 2)).toBeUndefined();
  });
});
