import { createId as cuid2 } from '@paralleldrive/cuid2';
import { createId } from '#db/queries/ids.ts';
import { median } from './stats.ts';

/**
 * `npx tsx bench/ids.ts`: ids per second, cuid2's `createId` against db/queries/ids.ts's, in turns
 * (rounds of each, medians), in one process. A busy machine moves both; the ratio is what reads.
 */
const ROUNDS = Number(process.argv[2] ?? 7);
const makers = { cuid2, ours: createId } as const;

function perSecond(make: () => string, count: number) {
  const started = performance.now();
  for (let i = 0; i < count; i++) make();
  return count / ((performance.now() - started) / 1000);
}

// Warm-up: cuid2's first id loads its fingerprint; both get the JIT's attention.
for (const make of Object.values(makers)) perSecond(make, 2_000);
const samples = { cuid2: [] as number[], ours: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  samples.cuid2.push(perSecond(cuid2, 1_000));
  samples.ours.push(perSecond(createId, 100_000));
}
const line = (name: keyof typeof samples) => {
  const s = samples[name];
  const fmt = (n: number) => Math.round(n).toLocaleString('en');
  return `${name.padEnd(6)} median ${fmt(median(s))} ids/s (${fmt(Math.min(...s))}–${fmt(Math.max(...s))}), ${(1e6 / median(s)).toFixed(1)} µs per id`;
};
process.stdout.write(
  `${line('cuid2')}\n${line('ours')}\nours ÷ cuid2: ${(median(samples.ours) / median(samples.cuid2)).toFixed(0)} ×\n`,
);
