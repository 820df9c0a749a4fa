import type { Server } from 'node:http';

/**
 * Requests a server answered and the CPU its process spent between a reset and a read. Both are
 * taken while the load runs (measure.ts reads them at a measured slice's start and end, with load
 * on either side), so they cover the slice's steady load only. CPU per request is the
 * contention-proof figure: on a shared 2-core machine req/s and latency move with whatever else
 * runs, CPU time per answer much less.
 */
export function meterServer(server: Server) {
  let requests = 0;
  let cpu = process.cpuUsage();
  server.on('request', (_req, res) => {
    res.once('close', () => {
      requests++;
    });
  });
  return {
    reset: () => {
      requests = 0;
      cpu = process.cpuUsage();
    },
    read: () => {
      const used = process.cpuUsage(cpu);
      return { requests, cpuMs: (used.user + used.system) / 1000 };
    },
  };
}
