import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sql } from 'postgres';
import type { Child } from './child.ts';
import type { gatewayCommands } from './gateway-process.ts';
import { createBody } from './plan.ts';
import { quantile } from './stats.ts';

export const WEBHOOKS_OPERATION = 'webhooks: delivery worker, event commit → receipt';
/** The steady rate of the latency run's writes. */
export const WEBHOOK_EVENTS_PER_SECOND = 200;
/** How long the latency run waits, after its last write, for the deliveries still to come. */
const DRAIN_MS = 30_000;

export interface WebhookThroughput {
  /** Endpoints the deliveries were spread over (each bounds its own in-flight deliveries). */
  endpoints: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
}

export interface WebhookResult {
  name: string;
  throughput: WebhookThroughput[];
  latency: {
    eventsPerSecond: number;
    seconds: number;
    written: number;
    /** Writes the API did not answer 201. */
    errors: number;
    delivered: number;
    /** Written, not received within DRAIN_MS of the last write. */
    missing: number;
    p50: number;
    p99: number;
    max: number;
    /** Of that, from the event's commit to its delivery queued by the relay. */
    queuedP50: number;
    queuedP99: number;
    /** Of that, from the event's commit to the worker's record of the attempt. */
    recordedP50: number;
  };
}

/** A receiver on 127.0.0.1 that answers 200 at once and notes, per path, when each body arrived. */
async function startInstantReceiver() {
  const arrivals = new Map<string, { at: number; body: string }[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      const path = req.url ?? '/';
      const list = arrivals.get(path) ?? [];
      list.push({ at, body: Buffer.concat(chunks).toString('utf8') });
      arrivals.set(path, list);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => {
      const list = arrivals.get(path) ?? [];
      arrivals.set(path, list);
      return list;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WebhookContext {
  gateway: Child<typeof gatewayCommands>;
  gatewayUrl: string;
  token: string;
  /** A connection to the bench database (setup and cleanup only). */
  admin: Sql;
  workspaceId: string;
  seconds: number;
  /** Writes at the same rate before, not counted. */
  warmupSeconds: number;
  runTag: string;
  log: (line: string) => void;
}

/**
 * Webhooks under the local server's own loops. (a) One delivery worker (functions/webhooks/worker.ts,
 * as the deployed delivery function runs it) draining deliveries queued beforehand to a receiver
 * that answers 200 at once: deliveries per second, over one endpoint and over five (each endpoint
 * bounds its own in-flight deliveries). (b) POST /agents through the gateway at a steady 200 a
 * second, each committing an `agent.created` event, with `npm start`'s relay and worker running:
 * the time from the event's `occurredAt` (its transaction's time, so a little before the commit)
 * to the receiver having the body, on this machine's one clock.
 */
export async function measureWebhooks(ctx: WebhookContext): Promise<WebhookResult> {
  const receiver = await startInstantReceiver();
  const api = (path: string, body: string) =>
    fetch(`${ctx.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      body,
    });
  const createEndpoint = async (path: string) => {
    const answer = await api(
      '/webhook-endpoints',
      JSON.stringify({
        url: receiver.url(path),
        enabledEvents: ['agent.created'],
        description: `bench ${ctx.runTag}`,
      }),
    );
    if (answer.status !== 201) throw new Error(`webhook endpoint: ${answer.status} ${await answer.text()}`);
    return ((await answer.json()) as { id: string }).id;
  };
  const removeEndpoints = async () => {
    await ctx.admin`delete from webhook_endpoints where workspace_id = ${ctx.workspaceId}
      and description = ${`bench ${ctx.runTag}`}`;
    // Their deliveries and attempts went with them: thousands of dead rows the next phase's (and
    // the next run's) claims would otherwise step over until autovacuum came by.
    await ctx.admin`vacuum (analyze) webhook_endpoints, webhook_deliveries, webhook_attempts`;
  };
  /**
   * Relays until the outbox is empty: the deliveries queued. The relay takes only events below the
   * server's oldest running transaction, so another database's long one holds it back a while.
   */
  const relayAll = async () => {
    let queued = 0;
    const until = Date.now() + 60_000;
    for (;;) {
      queued += await ctx.gateway.call('relayOnce');
      const [left] = await ctx.admin<
        { n: number }[]
      >`select count(*)::int as n from events where published_at is null`;
      if (left?.n === 0) return queued;
      if (Date.now() > until) throw new Error(`webhooks: ${left?.n} events still in the outbox after 60 s`);
      await sleep(10);
    }
  };
  try {
    // What earlier operations wrote stays out of the endpoints' deliveries (the run deletes them after).
    await ctx.admin`update events set published_at = now() where published_at is null`;

    const throughput: WebhookThroughput[] = [];
    const total = Math.min(10_000, Math.max(1_000, 500 * ctx.seconds));
    for (const endpoints of [1, 5]) {
      const paths = Array.from({ length: endpoints }, (_, i) => `/throughput-${endpoints}-${i}`);
      for (const path of paths) await createEndpoint(path);
      const events = Math.ceil(total / endpoints);
      await ctx.admin`
        insert into events (type, workspace_id, data)
        select 'agent.created', ${ctx.workspaceId}, jsonb_build_object('agentId', 'bench' || g,
          'name', 'Bench ' || g, 'slug', 'bench-' || g, 'versionId', 'benchversion' || g)
        from generate_series(1, ${events}::int) g`;
      const queued = await relayAll();
      const run = await ctx.gateway.call('deliverAll');
      const received = paths.reduce((n, p) => n + receiver.at(p).length, 0);
      if (queued === 0 || run.succeeded !== queued || received < queued)
        throw new Error(`webhooks: ${queued} queued, ${run.succeeded} succeeded, ${received} received`);
      throughput.push({
        endpoints,
        deliveries: run.succeeded,
        seconds: run.ms / 1000,
        perSecond: run.succeeded / (run.ms / 1000),
      });
      ctx.log(
        `  one worker, ${endpoints} endpoint(s): ${(run.succeeded / (run.ms / 1000)).toFixed(0)} deliveries/s`,
      );
      await removeEndpoints();
    }

    await createEndpoint('/latency');
    await ctx.gateway.call('startBackground');
    let n = 0;
    /** POST /agents at the steady rate for `seconds`; then waits for their deliveries. */
    const writeSteadily = async (seconds: number) => {
      let written = 0;
      let errors = 0;
      const writes = new Set<Promise<void>>();
      const write = () => {
        const sent = api('/agents', createBody(`Bench hook ${ctx.runTag} ${++n}`)).then(
          async (answer) => {
            await answer.arrayBuffer();
            if (answer.status === 201) written++;
            else errors++;
          },
          () => {
            errors++;
          },
        );
        const tracked = sent.finally(() => writes.delete(tracked));
        writes.add(tracked);
      };
      // Open loop: each write leaves on its schedule, whether or not the earlier ones were answered.
      const started = performance.now();
      let sent = 0;
      for (;;) {
        const elapsed = performance.now() - started;
        if (elapsed >= seconds * 1000) break;
        const due = Math.floor((elapsed / 1000) * WEBHOOK_EVENTS_PER_SECOND);
        for (; sent < due; sent++) write();
        await sleep(2);
      }
      await Promise.all(writes);
      const until = Date.now() + DRAIN_MS;
      while (receiver.at('/latency').length < written && Date.now() < until) await sleep(50);
      return { written, errors };
    };
    // The loops warm (the relay's SDK client loaded, the pools' connections open), as a running server's.
    await writeSteadily(ctx.warmupSeconds);
    receiver.at('/latency').length = 0;
    const measuredFrom = new Date();
    const { written, errors } = await writeSteadily(ctx.seconds);
    await ctx.gateway.call('stopBackground');
    // Where the time went: the event's commit to its delivery queued (the relay's claim), in ms.
    // Where the time went, in ms: the event's commit to its delivery queued (the relay's claim), and
    // to its attempt recorded (the worker's statement after the answer).
    const [queued] = await ctx.admin<{ p50: number; p99: number; recordedP50: number }[]>`
      select percentile_cont(0.5) within group (order by queued) as p50,
        percentile_cont(0.99) within group (order by queued) as p99,
        percentile_cont(0.5) within group (order by recorded) as "recordedP50"
      from (select extract(epoch from d.created_at - e.occurred_at) * 1000 as queued,
          extract(epoch from a.at - e.occurred_at) * 1000 as recorded
        from webhook_deliveries d join events e on e.id = d.event_id
        join webhook_endpoints w on w.id = d.endpoint_id
        join webhook_attempts a on a.delivery_id = d.id
        where w.url = ${receiver.url('/latency')} and e.occurred_at >= ${measuredFrom}) x`;
    const arrivals = receiver.at('/latency');
    const latencies = arrivals
      .map((a) => a.at - Date.parse((JSON.parse(a.body) as { timestamp: string }).timestamp))
      .sort((x, y) => x - y);
    return {
      name: WEBHOOKS_OPERATION,
      throughput,
      latency: {
        eventsPerSecond: WEBHOOK_EVENTS_PER_SECOND,
        seconds: ctx.seconds,
        written,
        errors,
        delivered: arrivals.length,
        missing: Math.max(0, written - arrivals.length),
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: latencies.at(-1) ?? Number.NaN,
        queuedP50: Number(queued?.p50),
        queuedP99: Number(queued?.p99),
        recordedP50: Number(queued?.recordedP50),
      },
    };
  } finally {
    await ctx.gateway.call('stopBackground');
    await removeEndpoints();
    await receiver.close();
  }
}

export function formatWebhooks(r: WebhookResult | undefined): string {
  if (!r) return 'Webhooks: not measured in this run (--only).';
  const l = r.latency;
  return [
    `Webhooks (${r.name}):`,
    ...r.throughput.map(
      (t) =>
        `  one worker, ${t.endpoints} endpoint(s): ${t.perSecond.toFixed(0)} deliveries/s (${t.deliveries} in ${t.seconds.toFixed(2)} s)`,
    ),
    `  POST /agents at ${l.eventsPerSecond}/s for ${l.seconds} s, relay and worker as npm start runs them: ` +
      `${l.written} written (${l.errors} failed), ${l.delivered} delivered, ${l.missing} missing; ` +
      `commit → receipt p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms ` +
      `(commit → queued by the relay: p50 ${l.queuedP50.toFixed(0)} ms, p99 ${l.queuedP99.toFixed(0)} ms; ` +
      `→ attempt recorded: p50 ${l.recordedP50.toFixed(0)} ms)`,
  ].join('\n');
}
