import { openDatabase } from '#db/client.ts';
import { build as buildRelay, eventBridgePublisher } from '#functions/events/relay.ts';
import { createLogger } from '#functions/http/log.ts';
import { secretBoxFromEnv } from '#functions/webhooks/secrets.ts';
import { build as buildWorker, defaultWorkerSettings } from '#functions/webhooks/worker.ts';
import { startRelayLoop, startWebhooks } from '#infra/local/background.ts';
import { startGateway } from '#infra/local/gateway.ts';
import { startEventBridgeEndpoint } from '#local-aws/eventbridge-endpoint.ts';
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

// The relay publishes to the EventBridge stand-in, as under `npm start`.
const deps = { database: handle, logger: createLogger(() => {}) };
const bridge = await startEventBridgeEndpoint({ onEvent: () => {} });
const publish = eventBridgePublisher(
  { EVENT_BUS_NAME: 'voice-agent-admin-bench' },
  { endpoint: bridge.url, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } },
);
/** `npm start`'s relay and delivery loops, while the webhooks' latency is measured. */
let background: { close(): Promise<void> }[] = [];

let since = performance.now();
const rss: Array<[seconds: number, mb: number]> = [];
setInterval(
  () => rss.push([(performance.now() - since) / 1000, process.memoryUsage.rss() / 2 ** 20]),
  250,
).unref();

export const gatewayCommands = {
  /** Starts the relay and the delivery worker on `npm start`'s cadence (infra/local/background.ts). */
  startBackground: async () => {
    const webhooks = await startWebhooks(deps);
    const relay = await startRelayLoop({ ...deps, publish, wake: webhooks.wake });
    background = [relay, webhooks];
  },
  stopBackground: async () => {
    for (const loop of background) await loop.close();
    background = [];
  },
  /** One relay run: the deliveries it queued. */
  relayOnce: async () => (await buildRelay({ ...deps, publish })()).queued,
  /** One delivery worker, as deployed, run until nothing is due: what it delivered, how fast. */
  deliverAll: async () => {
    const worker = buildWorker({ ...deps, box: secretBoxFromEnv(), settings: defaultWorkerSettings() });
    const started = performance.now();
    let claimed = 0;
    let succeeded = 0;
    for (;;) {
      const run = await worker({ budgetMs: 60_000 });
      if (run.claimed === 0) break;
      claimed += run.claimed;
      succeeded += run.succeeded;
    }
    return { claimed, succeeded, ms: performance.now() - started };
  },

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
  for (const loop of background) await loop.close();
  await bridge.close();
  await gateway.close();
  await handle.close();
});
