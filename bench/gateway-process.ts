import { openDatabase } from '#db/client.ts';
import { createLogger } from '#functions/http/log.ts';
import { startGateway } from '#infra/local/gateway.ts';
import { serveCommands } from './child.ts';
import { meterServer } from './server-meter.ts';

/** A statement as the driver sent it: the baselines replay exactly this. */
export interface Statement {
  query: string;
  parameters: unknown[];
}

// The local gateway over the bench database, in a process of its own (started by run.ts).
const handle = await openDatabase({
  kind: 'postgres',
  url: process.env.BENCH_DATABASE_URL ?? '',
  poolMax: Number(process.env.BENCH_POOL_MAX ?? 1),
});

// postgres.js calls `options.debug` for every statement it sends: the statement count per request.
const { driver } = handle;
if (driver.kind !== 'postgres') throw new Error('the bench gateway runs on Postgres');
const client = driver.sql;
let statements = 0;
let captured: Statement[] | undefined;
client.options.debug = (_connection: number, query: string, parameters: unknown[]) => {
  statements++;
  captured?.push({ query, parameters: [...parameters] });
};

// Log lines are built (redaction, JSON) as in Lambda but not written: the bench's stdout is its table.
const gateway = await startGateway({ deps: { database: handle, logger: createLogger(() => {}) } });

const meter = meterServer(gateway.server);

let since = performance.now();
const rss: Array<[seconds: number, mb: number]> = [];
setInterval(
  () => rss.push([(performance.now() - since) / 1000, process.memoryUsage.rss() / 2 ** 20]),
  250,
).unref();

export const gatewayCommands = {
  /** Start recording the statements sent, until `captured` is called. */
  capture: () => {
    captured = [];
  },
  captured: (): Statement[] => {
    const statementsSent = captured ?? [];
    captured = undefined;
    return statementsSent;
  },
  resetCounters: () => {
    meter.reset();
    statements = 0;
    rss.length = 0;
    since = performance.now();
  },
  counters: () => ({
    ...meter.read(),
    statements,
    rss: [...rss],
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
};

serveCommands(gatewayCommands, { url: gateway.url }, async () => {
  await gateway.close();
  await handle.close();
});
