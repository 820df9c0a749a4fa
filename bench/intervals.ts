import type { Slice } from './measure.ts';
import { quantile } from './stats.ts';

/** mulberry32: a seeded generator, so one run's slices always give the same interval. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * How far target `a`'s answers per second over `b`'s moves from round to round: the central
 * `level` interval of the pooled ratio, rounds resampled with replacement (a bootstrap). A round
 * holds one slice of each target, taken one after the other, so its two slices saw the same
 * machine; the spread is what the VM adds to a ratio. Undefined with fewer than three rounds.
 */
export function ratioInterval(
  slices: readonly Slice[],
  a: string,
  b: string,
  level = 0.9,
  draws = 2_000,
): [number, number] | undefined {
  const of = (target: string) => slices.filter((s) => s.target === target).map((s) => s.rps);
  const [top, bottom] = [of(a), of(b)];
  const rounds = Math.min(top.length, bottom.length);
  if (rounds < 3) return undefined;
  const random = seeded(rounds * 7919 + top.length);
  const ratios: number[] = [];
  for (let d = 0; d < draws; d++) {
    let sumTop = 0;
    let sumBottom = 0;
    for (let i = 0; i < rounds; i++) {
      const k = Math.floor(random() * rounds);
      sumTop += top[k] ?? 0;
      sumBottom += bottom[k] ?? 0;
    }
    if (sumBottom > 0) ratios.push(sumTop / sumBottom);
  }
  ratios.sort((x, y) => x - y);
  return [quantile(ratios, (1 - level) / 2), quantile(ratios, (1 + level) / 2)];
}

/** ` (90 % over rounds 0.84–0.95)`, or nothing when there were too few rounds to tell. */
export const formatInterval = (interval: [number, number] | undefined) =>
  interval ? ` (90 % over rounds ${interval[0].toFixed(2)}–${interval[1].toFixed(2)})` : '';
