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

  it('says nothing with fewer samples than asked for in each half', () => {
    const steady = (seconds: number) => series(seconds, () => 20);
    expect(memoryHalves(steady(7), 'held')).toBeUndefined();
    expect(memoryHalves(steady(4), 'held', 2)?.floorGrowth).toBe(0);
    expect(memoryHalves(steady(3), 'held', 2)).toBeUndefined();
  });
});
