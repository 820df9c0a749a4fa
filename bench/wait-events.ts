import type postgres from 'postgres';

/**
 * What the bench database's active backends were doing, sampled from `pg_stat_activity`: running
 * on a CPU, waiting for the WAL to reach the disk (a commit), for a lock, or for something else.
 * Where the database CPU per answer cannot tell why a target leaves the database's cores idle
 * (a write waits on its commit's flush, not on a core), this can.
 */
export type WaitClass = 'cpu' | 'walFlush' | 'lock' | 'other';

export interface WaitSamples {
  /** Polls taken. */
  polls: number;
  /** Active backends seen, by what they waited on, summed over the polls. */
  active: Record<WaitClass, number>;
}

/** Between two polls: dozens per slice, hundreds per target, and too few to load the database's core. */
const POLL_MS = 20;

export const noWaits = (): WaitSamples => ({ polls: 0, active: { cpu: 0, walFlush: 0, lock: 0, other: 0 } });

/** The I/O a commit waits on until its WAL is on the disk (WALRead is not one). */
const WAL_FLUSH_IO = new Set(['WALWrite', 'WALSync', 'WALInitWrite', 'WALInitSync']);

const classOf = (type: string | null, event: string | null): WaitClass =>
  type === null
    ? 'cpu'
    : (type === 'LWLock' && event === 'WALWrite') || (type === 'IO' && WAL_FLUSH_IO.has(event ?? ''))
      ? 'walFlush'
      : type === 'Lock'
        ? 'lock'
        : 'other';

/** Starts polling on `admin` (a connection of its own); the function returned stops and gives the counts. */
export function sampleWaits(admin: postgres.Sql): () => Promise<WaitSamples> {
  const samples = noWaits();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const rows = await admin<{ type: string | null; event: string | null }[]>`
        select wait_event_type as type, wait_event as event from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`;
      samples.polls++;
      for (const row of rows) samples.active[classOf(row.type, row.event)]++;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return samples;
  };
}

/** The slices' samples as one. */
export function poolWaits(all: readonly (WaitSamples | undefined)[]): WaitSamples | undefined {
  if (all.length === 0 || all.some((w) => w === undefined)) return undefined;
  const pooled = noWaits();
  for (const w of all as WaitSamples[]) {
    pooled.polls += w.polls;
    for (const key of Object.keys(pooled.active) as WaitClass[]) pooled.active[key] += w.active[key];
  }
  return pooled;
}

/** `8.7 active: CPU 21 % · WAL flush 66 % · lock 11 % · other 2 %` */
export function formatWaits(w: WaitSamples): string {
  const total = Object.values(w.active).reduce((a, b) => a + b, 0);
  const share = (key: WaitClass) => `${Math.round((100 * w.active[key]) / Math.max(1, total))} %`;
  return `${(total / Math.max(1, w.polls)).toFixed(1)} active: CPU ${share('cpu')} · WAL flush ${share(
    'walFlush',
  )} · lock ${share('lock')} · other ${share('other')}`;
}
