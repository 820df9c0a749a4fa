import autocannon from 'autocannon';
import { type Stats, summarize } from './stats.ts';

export interface HttpTarget {
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A fresh body per request (e.g. a unique agent name). */
  body?: () => string;
}

export interface Timing {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

/**
 * autocannon as a library, `pipelining: 1`. Latencies are taken from its per-response event
 * (sub-millisecond; its own histogram keeps whole milliseconds), only for 2xx answers.
 */
function run(target: HttpTarget, connections: number, seconds: number): Promise<Stats> {
  const latencies: number[] = [];
  let failed = 0;
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const { body } = target;
    const instance = autocannon(
      {
        url: target.url,
        connections,
        pipelining: 1,
        duration: seconds,
        requests: [
          {
            method: target.method,
            path: target.path,
            headers: target.headers,
            ...(body ? { setupRequest: (request) => ({ ...request, body: body() }) } : {}),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const used = process.cpuUsage(cpu);
        const stats = summarize(latencies, result.duration, failed + result.errors + result.timeouts);
        const loadCpuMsPerRequest = (used.user + used.system) / 1000 / Math.max(1, latencies.length);
        resolve({ ...stats, loadCpuMsPerRequest });
      },
    );
    instance.on('response', (_client, status: number, _bytes, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failed++;
    });
  });
}

/** A warm-up run (discarded: JIT, pools, caches), `between()`, then the measured run. */
export async function loadHttp(
  target: HttpTarget,
  timing: Timing,
  between?: () => Promise<unknown>,
): Promise<Stats> {
  await run(target, timing.connections, timing.warmupSeconds);
  await between?.();
  return run(target, timing.connections, timing.seconds);
}
