import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import { busyShare, coresOf, coreTicks, cpuSpent, processCpuMs } from '../../bench/layout.ts';
import { pool, type Sample } from '../../bench/stats.ts';

describe("the bench's core readings (which side of the split layout was the limit)", () => {
  it('reads the cores of a taskset list', () => {
    expect(coresOf('0')).toEqual([0]);
    expect(coresOf('0-1')).toEqual([0, 1]);
    expect(coresOf('2-3,6')).toEqual([2, 3, 6]);
  });

  it("sums the CPU of the processes in both readings (the bench database's backends), leaving out those that came or went", () => {
    const before = new Map([
      [10, 100],
      [11, 50],
      [12, 7],
    ]);
    const after = new Map([
      [10, 130],
      [11, 55],
      [13, 900],
    ]);
    expect(cpuSpent(before, after)).toBe(35);
    expect(cpuSpent(before, new Map())).toBe(0);
  });

  it.skipIf(process.platform !== 'linux')('reads a process CPU from /proc (Linux only)', () => {
    const readings = processCpuMs([process.pid, 2 ** 30]);
    expect([...readings.keys()]).toEqual([process.pid]);
    expect(readings.get(process.pid)).toBeGreaterThan(0);
  });

  it('gives the busy share of a group of cores between two readings', () => {
    const before = [
      { busy: 100, total: 1000 },
      { busy: 0, total: 1000 },
    ];
    const after = [
      { busy: 190, total: 1100 },
      { busy: 25, total: 1100 },
    ];
    expect(busyShare(before, after, [0])).toBeCloseTo(0.9);
    expect(busyShare(before, after, [1])).toBeCloseTo(0.25);
    expect(busyShare(before, after, [0, 1])).toBeCloseTo(0.575);
    expect(busyShare(before, after, [2])).toBeUndefined();
    expect(busyShare(undefined, after, [0])).toBeUndefined();
  });

  it.skipIf(process.platform !== 'linux')(
    'reads every core from /proc/stat (Linux only), never going back',
    () => {
      const a = coreTicks();
      // /proc/stat counts in ticks (10 ms): spin for several, or no time has passed in its count.
      let spin = 0;
      const until = performance.now() + 50;
      while (performance.now() < until) spin++;
      const b = coreTicks();
      expect(spin).toBeGreaterThan(0);
      expect(a?.length).toBe(cpus().length);
      const share = busyShare(a, b, coresOf(`0-${cpus().length - 1}`));
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
    },
  );

  it("pools the slices' busy shares weighted by their length, and only when every slice has one", () => {
    const slice = (seconds: number, database: number, bench: number): Sample => ({
      latencies: [1],
      seconds,
      errors: 0,
      busy: { database, bench },
    });
    expect(pool([slice(1, 1, 0.2), slice(3, 0.6, 0.6)]).busy).toEqual({
      database: expect.closeTo(0.7),
      bench: expect.closeTo(0.5),
    });
    expect(pool([slice(1, 1, 0.2), { latencies: [1], seconds: 1, errors: 0 }]).busy).toBeUndefined();
  });
});
