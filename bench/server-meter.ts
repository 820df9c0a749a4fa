import type { Server } from 'node:http';

/**
 * Requests a server answered and the CPU its process spent meanwhile. Readings start and end with
 * the server idle: a request autocannon left in flight at the end of a warm-up must not count.
 * CPU per request is the contention-proof figure: on a shared 2-core machine req/s and latency
 * move with whatever else runs, CPU time per answer much less.
 */
export function meterServer(server: Server) {
  let requests = 0;
  let inFlight = 0;
  let cpu = process.cpuUsage();
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      requests++;
    });
  });
  const idle = async () => {
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return {
    reset: async () => {
      await idle();
      requests = 0;
      cpu = process.cpuUsage();
    },
    read: async () => {
      await idle();
      const used = process.cpuUsage(cpu);
      return { requests, cpuMs: (used.user + used.system) / 1000 };
    },
  };
}
