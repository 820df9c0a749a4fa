import autocannon from 'autocannon';
import { cpuBetween, type Sample } from './stats.ts';

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

/** When a measured slice starts and ends (performance.now()); the load runs on either side of it. */
export interface Window {
  start: number;
  end: number;
}

/**
 * Load from autocannon as a library, `pipelining: 1`, for `seconds`. Latencies are taken from its
 * per-response event (sub-millisecond; its own histogram keeps whole milliseconds), only for 2xx
 * answers and, given a `window`, only for the answers that arrived within it: the requests in flight
 * when autocannon stops are dropped, and its connections open at the start, so only a window with
 * load on both sides sees the steady rate. `loadCpuMs` is autocannon's own CPU (it runs in the
 * bench's process), over the window.
 */
export function loadHttp(
  target: HttpTarget,
  connections: number,
  seconds: number,
  window?: Window,
): Promise<Sample> {
  const latencies: number[] = [];
  let failed = 0;
  const all = process.cpuUsage();
  const cpu = window ? cpuBetween(window.start, window.end) : undefined;
  const inWindow = (at: number) => !window || (at >= window.start && at <= window.end);
  return new Promise((resolve, reject) => {
    const { body } = target;
    const instance = autocannon(
      {
        url: target.url,
        connections,
        pipelining: 1,
        duration: seconds,
        // It stops at the first sample after `duration`: every 100 ms, not every second.
        sampleInt: 100,
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
        const used = process.cpuUsage(all);
        void (cpu ?? Promise.resolve((used.user + used.system) / 1000)).then((loadCpuMs) =>
          resolve({
            latencies,
            seconds: window ? (window.end - window.start) / 1000 : result.duration,
            errors: failed + result.errors + result.timeouts,
            loadCpuMs,
          }),
        );
      },
    );
    instance.on('response', (_client, status: number, _bytes, ms: number) => {
      if (!inWindow(performance.now())) return;
      if (status >= 200 && status < 300) latencies.push(ms);
      else failed++;
    });
  });
}
