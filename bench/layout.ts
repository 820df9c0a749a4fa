import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, getPriority, setPriority } from 'node:os';

/**
 * Where the processes run. `shared`: Postgres, the servers under test and the load generator on
 * every core, as they fall. `split` (the default where it can be set up): the local Postgres
 * server's processes on the first half of the cores, the bench's own (the gateway, the baselines,
 * autocannon) on the other half. Deployed, the database never shares CPU with the functions that
 * call it; on a 2-core machine `shared` makes the API's HTTP hop and its load generator take
 * their CPU from the database, which the driver row (no HTTP, no load generator) does not.
 */
export type LayoutKind = 'split' | 'shared';

export interface Layout {
  kind: LayoutKind;
  /** The cores each side was given (`split` only), as taskset lists them: `0`, `1`. */
  databaseCpus?: string;
  benchCpus?: string;
  /** Why `split` was asked for and not set up. */
  why?: string;
}

/** The processes of a Postgres server on this machine (Linux: every process named `postgres`). */
export function databasePids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((name) => /^\d+$/.test(name) && comm(Number(name)) === 'postgres').map(Number);
}

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined; // exited meanwhile
  }
}

/** The fields of `/proc/<pid>/stat` after the command: state is [0], the parent [1], CPU times [11]–[14]. */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  } catch {
    return undefined; // exited meanwhile
  }
}

/** The postmaster first (the `postgres` process whose parent is not one): new backends inherit its affinity. */
const postmasterFirst = (pids: number[]) => {
  const isPostmaster = (pid: number) => comm(Number(statFields(pid)?.[1])) !== 'postgres';
  const postmaster = pids.find(isPostmaster);
  return postmaster === undefined ? pids : [postmaster, ...pids.filter((pid) => pid !== postmaster)];
};

const affinityOf = (pid: number) =>
  execFileSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' })
    .split(': ')
    .at(-1)
    ?.trim() ?? '';

/** Sets a process's affinity, all its threads included; a process that exited meanwhile is fine. */
function pin(pid: number, list: string) {
  try {
    execFileSync('taskset', ['-a', '-c', '-p', list, String(pid)], { stdio: 'ignore' });
  } catch (error) {
    if (comm(pid) !== undefined) throw error;
  }
}

export const isLoopback = (url: string) =>
  ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(new URL(url).hostname);

/**
 * Sets up the layout asked for, if it can: `split` needs Linux, 2 cores or more, a database server
 * on this machine, `taskset` and the right to pin its processes (root, or the same user). Returns
 * the layout in effect and how to undo it; the undo also runs when the process exits.
 */
export function applyLayout(
  wanted: LayoutKind,
  databaseUrl: string,
): { layout: Layout; restore: () => void } {
  const none = (why?: string) => ({
    layout: { kind: 'shared' as const, ...(why ? { why } : {}) },
    restore: () => {},
  });
  if (wanted === 'shared') return none();
  const n = cpus().length;
  if (process.platform !== 'linux') return none('not Linux');
  if (n < 2) return none('one core');
  if (!isLoopback(databaseUrl)) return none('the database server is not on this machine');
  const pids = postmasterFirst(databasePids());
  const [postmaster] = pids;
  if (postmaster === undefined) return none('no postgres process found');
  const half = Math.floor(n / 2);
  const databaseCpus = half === 1 ? '0' : `0-${half - 1}`;
  const benchCpus = half === n - 1 ? String(half) : `${half}-${n - 1}`;
  let original: { database: string; bench: string };
  try {
    original = { database: affinityOf(postmaster), bench: affinityOf(process.pid) };
  } catch {
    return none('taskset is not available');
  }
  const restore = () => {
    // Every process of the server now, backends started during the run included.
    for (const pid of postmasterFirst(databasePids())) {
      try {
        pin(pid, original.database);
      } catch {
        // nothing more to do: it could be pinned, so it can be unpinned; a failure here is a race
      }
    }
    try {
      pin(process.pid, original.bench);
    } catch {}
  };
  try {
    for (const pid of pids) pin(pid, databaseCpus);
    pin(process.pid, benchCpus);
  } catch (error) {
    restore();
    return none(`could not pin the server's processes (${error instanceof Error ? error.message : error})`);
  }
  process.once('exit', restore);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  return { layout: { kind: 'split', databaseCpus, benchCpus }, restore };
}

/** The cores of a `taskset` list (`0`, `0-1`, `2-3`). */
export function coresOf(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from = 0, to = from] = part.split('-').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** Each core's busy and total ticks so far (/proc/stat; idle and iowait count as not busy), or undefined. */
export function coreTicks(): Array<{ busy: number; total: number }> | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const ticks: Array<{ busy: number; total: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    // user nice system idle iowait irq softirq steal
    const n = (match[2] ?? '').split(/\s+/).slice(0, 8).map(Number);
    const total = n.reduce((a, b) => a + b, 0);
    ticks[Number(match[1])] = { busy: total - (n[3] ?? 0) - (n[4] ?? 0), total };
  }
  return ticks;
}

/** The share of `cores`' time spent busy between two `coreTicks()` readings (0–1). */
export function busyShare(
  before: ReturnType<typeof coreTicks>,
  after: ReturnType<typeof coreTicks>,
  cores: number[],
): number | undefined {
  if (!before || !after) return undefined;
  let busy = 0;
  let total = 0;
  for (const core of cores) {
    const [a, b] = [before[core], after[core]];
    if (!a || !b) return undefined;
    busy += b.busy - a.busy;
    total += b.total - a.total;
  }
  return total > 0 ? busy / total : undefined;
}

/**
 * CPU (ms) each of `pids` has used so far; one that has exited is left out. From the scheduler's own
 * count in nanoseconds (`/proc/<pid>/schedstat`) where the kernel keeps it: utime + stime come in
 * ticks of 10 ms, which across ten backends blur a slice of a second or two by several percent.
 */
export function processCpuMs(pids: readonly number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    const ms = scheduledMs(pid) ?? tickedMs(pid);
    if (ms !== undefined) used.set(pid, ms);
  }
  return used;
}

function scheduledMs(pid: number): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined; // exited meanwhile, or no schedstat
  }
}

function tickedMs(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields && (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}

/** CPU (ms) spent between two `processCpuMs` readings by the processes in both. */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? ms);
  return spent;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * Lowers this thread's priority (autocannon runs on it) to `nice` once the servers have started
 * at the default one (`--load-nice`): deployed, the load does not share the servers' CPU. The nice
 * value, or undefined when not allowed.
 */
export function yieldToServers(nice: number): number | undefined {
  try {
    if (nice !== 0) setPriority(nice);
    return getPriority();
  } catch {
    return undefined;
  }
}
