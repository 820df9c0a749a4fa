import { poolWaits, type WaitSamples } from './wait-events.ts';

/** What every measured run reports, whichever tool produced the load. */
export interface Stats {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Failed requests: connection errors, timeouts and non-2xx answers. */
  errors: number;
  /** CPU the serving process (or, for the driver, the client process) spent per answer. */
  cpuMsPerRequest?: number;
  /** CPU the load generator (autocannon, in the bench's own process) spent per answer, on the same cores. */
  loadCpuMsPerRequest?: number;
  /** CPU the database server's processes spent per answer (a server on this machine only). */
  dbCpuMsPerRequest?: number;
  /** Share of the time each group of cores was busy (the split layout only). */
  busy?: CoresBusy;
  /** What the database's active backends waited on (a server on this machine only). */
  waits?: WaitSamples;
}

/** The share (0–1) of a stretch of time each group of cores of the split layout was busy. */
export interface CoresBusy {
  database: number;
  bench: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The value at quantile `q` (0 the least, 1 the greatest) of values sorted ascending; NaN of none. */
export const quantile = (sorted: readonly number[], q: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))] as number);

/** Summarises the latencies (ms) of the successful requests of one run of `seconds`. */
export function summarize(latencies: number[], seconds: number, errors: number): Stats {
  const sorted = Float64Array.from(latencies).sort();
  const values = Array.from(sorted);
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    mean: values.reduce((a, b) => a + b, 0) / Math.max(1, values.length),
    errors,
  };
}

/**
 * One slice of one target's load: what `summarize` needs, kept raw so slices taken at different
 * times can be pooled (measure.ts interleaves the targets).
 */
export interface Sample {
  /** Latencies (ms) of the successful requests. */
  latencies: number[];
  seconds: number;
  errors: number;
  /** CPU ms over the slice: the serving process (the client, for the driver), autocannon, the database. */
  cpuMs?: number;
  loadCpuMs?: number;
  dbCpuMs?: number;
  /** Share of the slice each group of cores was busy (the split layout only). */
  busy?: CoresBusy;
  /** What the database's active backends waited on over the slice. */
  waits?: WaitSamples;
}

/** The slices as one run: latencies pooled, seconds, errors and CPU summed. */
export function pool(samples: Sample[]): Stats {
  const stats = summarize(
    samples.flatMap((s) => s.latencies),
    samples.reduce((a, s) => a + s.seconds, 0),
    samples.reduce((a, s) => a + s.errors, 0),
  );
  const perRequest = (key: 'cpuMs' | 'loadCpuMs' | 'dbCpuMs') =>
    samples.every((s) => s[key] !== undefined)
      ? samples.reduce((a, s) => a + (s[key] ?? 0), 0) / Math.max(1, stats.requests)
      : undefined;
  const optional = {
    cpuMsPerRequest: perRequest('cpuMs'),
    loadCpuMsPerRequest: perRequest('loadCpuMs'),
    dbCpuMsPerRequest: perRequest('dbCpuMs'),
  };
  // Weighted by each slice's length: the share of the pooled time.
  const busyOf = (group: keyof CoresBusy) =>
    samples.reduce((a, s) => a + (s.busy?.[group] ?? 0) * s.seconds, 0) / Math.max(1e-9, stats.seconds);
  const busy = samples.every((s) => s.busy)
    ? { database: busyOf('database'), bench: busyOf('bench') }
    : undefined;
  const waits = poolWaits(samples.map((s) => s.waits));
  return {
    ...stats,
    ...Object.fromEntries(Object.entries({ ...optional, busy, waits }).filter(([, v]) => v !== undefined)),
  };
}

/** `read()`'s result at `time` (performance.now()). */
export const readAt = <T>(time: number, read: () => T): Promise<Awaited<T>> =>
  new Promise((resolve) =>
    setTimeout(() => resolve(read() as Awaited<T>), Math.max(0, time - performance.now())),
  );

/** This process's CPU ms between two times (performance.now()), read by timers. */
export function cpuBetween(from: number, to: number): Promise<number> {
  const usage = () => process.cpuUsage();
  return Promise.all([readAt(from, usage), readAt(to, usage)]).then(
    ([a, b]) => (b.user - a.user + b.system - a.system) / 1000,
  );
}
