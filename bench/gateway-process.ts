import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
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

/**
 * The gateway's memory every 250 ms: seconds since the counters were reset, RSS, and what V8 holds
 * (heap used, and the Buffers outside it) in MiB.
 */
export type MemorySample = [seconds: number, rssMb: number, heldMb: number];

// The local gateway over the bench database, in a process of its own (started by measure-all.ts).
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

const deps = { database: handle, logger: createLogger(() => {}) };
/**
 * The webhook operation's parts, loaded when it first runs: a `--baseline` tree's gateway runs this
 * file too, and an older tree may have none of them. The relay publishes to the EventBridge
 * stand-in, as under `npm start`.
 */
async function loadWebhookParts() {
  const [relay, secrets, worker, background, eventBridge] = await Promise.all([
    import('#functions/events/relay.ts'),
    import('#functions/webhooks/secrets.ts'),
    import('#functions/webhooks/worker.ts'),
    import('#infra/local/background.ts'),
    import('#local-aws/eventbridge-endpoint.ts'),
  ]);
  const bridge = await eventBridge.startEventBridgeEndpoint({ onEvent: () => {} });
  const publish = relay.eventBridgePublisher(
    { EVENT_BUS_NAME: 'voice-agent-admin-bench' },
    {
      endpoint: bridge.url,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    },
  );
  return { relay, secrets, worker, background, bridge, publish };
}
let webhooksLoading: ReturnType<typeof loadWebhookParts> | undefined;
const webhookParts = () => {
  webhooksLoading ??= loadWebhookParts();
  return webhooksLoading;
};
/** `npm start`'s relay and delivery loops, while the webhooks' latency is measured. */
let background: { close(): Promise<void> }[] = [];

let since = performance.now();
const memoryNow = (): MemorySample => {
  const { rss, heapUsed, external } = process.memoryUsage();
  return [(performance.now() - since) / 1000, rss / 2 ** 20, (heapUsed + external) / 2 ** 20];
};
const memory: MemorySample[] = [];
setInterval(() => memory.push(memoryNow()), 250).unref();
/**
 * What V8 still holds just after each full collection (reported a moment after it ends): the live
 * set, which only a leak makes grow. Sampled at any other time, what it holds moves with the
 * garbage not yet collected.
 */
const afterFullGc: MemorySample[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
    if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) afterFullGc.push(memoryNow());
  }
}).observe({ entryTypes: ['gc'] });

export const gatewayCommands = {
  /** Starts the relay and the delivery worker on `npm start`'s cadence (infra/local/background.ts). */
  startBackground: async () => {
    const { background: loops, publish } = await webhookParts();
    const webhooks = await loops.startWebhooks(deps);
    const relay = await loops.startRelayLoop({ ...deps, publish, wake: webhooks.wake });
    background = [relay, webhooks];
  },
  stopBackground: async () => {
    for (const loop of background) await loop.close();
    background = [];
  },
  /** One relay run: the deliveries it queued. */
  relayOnce: async () => {
    const { relay, publish } = await webhookParts();
    return (await relay.build({ ...deps, publish })()).queued;
  },
  /** One delivery worker, as deployed, run until nothing is due: what it delivered, how fast. */
  deliverAll: async () => {
    const parts = await webhookParts();
    const worker = parts.worker.build({
      ...deps,
      box: parts.secrets.secretBoxFromEnv(),
      settings: parts.worker.defaultWorkerSettings(),
    });
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
    memory.length = 0;
    afterFullGc.length = 0;
    since = performance.now();
  },
  counters: () => ({
    ...meter.read(),
    statements,
    memory: [...memory],
    afterFullGc: [...afterFullGc],
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }),
};

serveCommands(gatewayCommands, { url: gateway.url }, async () => {
  for (const loop of background) await loop.close();
  await (await webhooksLoading)?.bridge.close();
  await gateway.close();
  await handle.close();
});
