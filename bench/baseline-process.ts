import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sql from 'sql-template-tag';
import type { Statement as DbStatement } from '#db/database.ts';
import { PostgresDriver } from '#db/postgres-driver.ts';
import { createId } from '#db/queries/ids.ts';
import { serveCommands } from './child.ts';
import type { Statement } from './gateway-process.ts';
import { type PeerOperation, peer } from './peer.ts';
import { meterServer } from './server-meter.ts';
import { cpuBetween, type Sample } from './stats.ts';

// The baselines, in a process of their own: the same statement, without the API around it.
// The clients are the API's own driver (db/postgres-driver.ts: no prepared statements, the same
// codecs, one flight per statement), with the bench's pool and timeouts.
const client = (applicationName: string) =>
  new PostgresDriver(process.env.BENCH_DATABASE_URL ?? '', {
    poolMax: Number(process.env.BENCH_POOL_MAX ?? 1),
    connectTimeoutSeconds: 30,
    // autocannon gives up on a request after 10 s; the server should too, or the peer's abandoned
    // deep-offset statements (minutes each) keep the cores busy long after the measurement.
    statementTimeoutMs: 10_000,
    applicationName,
    // Between slices the connections wait: none is reopened inside a measurement.
    idleTimeoutSeconds: 0,
  });
// The bare server and the driver share connections that run the API's statements only (and
// settle's probe), as the API's own do. The peer has its own: the same statement text cost a
// backend less after it had run the peer's bigger statements, which made the driver look cheaper
// than the API.
const APPLICATION = { baselines: 'vaa-bench-baseline', peer: 'vaa-bench-peer' } as const;
const baseline = client(APPLICATION.baselines);
const peerDriver = client(APPLICATION.peer);

/** What the bare server replays: the statement, and the values varied on each call (a write's ids). */
let serving: { statement: Statement; vary?: DriveArgs['vary'] } | undefined;

/** The bare server: run the statement, JSON.stringify the rows' `item`s, answer. Nothing else. */
const server = createServer((_req, res) => {
  if (!serving) {
    res.writeHead(503).end();
    return;
  }
  replay(serving).then(
    (rows) => {
      // `item` as JSON text (a statement that leaves it unparsed) is joined, not encoded again.
      const items = rows.map((row) => row.item);
      const body = typeof items[0] === 'string' ? `[${items.join(',')}]` : JSON.stringify(items);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
    () => res.writeHead(500).end(),
  );
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const meter = meterServer(server);

// The peer (bench/peer.ts): the idiomatic Drizzle version, on the same kind of bare server and
// the same client settings.
const runPeer = peer(
  peerDriver.sql,
  process.env.BENCH_WORKSPACE_ID ?? '',
  process.env.BENCH_PRINCIPAL_ID ?? '',
  process.env.BENCH_KEY_ID ?? '',
);
let peerServing: PeerOperation | undefined;
const peerServer = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (!peerServing) {
      res.writeHead(503).end();
      return;
    }
    runPeer(peerServing, Buffer.concat(chunks).toString('utf8')).then(
      ({ status, body, link }) => {
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(link ? { link } : {}),
        });
        res.end(body);
      },
      (error) => {
        if (peerErrors++ === 0) process.stderr.write(`[bench] peer failed: ${String(error)}\n`);
        res.writeHead(500).end();
      },
    );
  });
});
let peerErrors = 0;
await new Promise<void>((resolve) => peerServer.listen(0, '127.0.0.1', resolve));
const peerMeter = meterServer(peerServer);

export interface DriveArgs {
  statement: Statement;
  /** Parameter values replaced on every call: `id` by a fresh id (the API's maker), `suffix` by value + a counter. */
  vary?: Record<string, 'id' | 'suffix'>;
  connections: number;
  /** Counted: the answers within these seconds after the lead. */
  seconds: number;
  /** Load before and after the counted seconds, not counted (0 by default). */
  leadSeconds?: number;
  tailSeconds?: number;
}

let calls = 0;
/** The statement as sent (text and parameters, an unnamed statement in one flight), with the `vary` values replaced. */
function replay({ statement, vary }: { statement: Statement; vary?: DriveArgs['vary'] }) {
  let parameters = statement.parameters;
  if (vary) {
    const n = ++calls;
    // One replacement per distinct value: the agent's id appears in both inserts.
    const fresh = new Map<string, string>();
    const replaced = (key: string, how: 'id' | 'suffix') => {
      if (!fresh.has(key)) fresh.set(key, how === 'id' ? createId() : `${key}-d${n}`);
      return fresh.get(key) ?? key;
    };
    parameters = parameters.map((value) => {
      const how = typeof value === 'string' ? vary[value] : undefined;
      return how ? replaced(value as string, how) : value;
    });
  }
  const sent = { text: statement.query, values: parameters } as unknown as DbStatement;
  return baseline.runner.rows<{ item: unknown }>(sent);
}

/**
 * `connections` loops, each issuing the statement as soon as its previous one answered, for
 * `leadSeconds + seconds + tailSeconds`; only the answers within the `seconds` after the lead are
 * counted, as autocannon's are (bench/load.ts). The statements still in flight at the end are
 * waited for, so the next slice starts on an idle database.
 */
async function drive(args: DriveArgs): Promise<Sample> {
  const { seconds, leadSeconds = 0, tailSeconds = 0 } = args;
  const started = performance.now();
  const from = started + leadSeconds * 1000;
  const to = from + seconds * 1000;
  const until = to + tailSeconds * 1000;
  const cpu = cpuBetween(from, to);
  const latencies: number[] = [];
  let errors = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const sent = performance.now();
      try {
        await replay(args);
        const answered = performance.now();
        if (answered >= from && answered <= to) latencies.push(answered - sent);
      } catch (error) {
        if (errors++ === 0) process.stderr.write(`[bench] baseline statement failed: ${String(error)}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: args.connections }, loop));
  return { latencies, seconds, errors, cpuMs: await cpu };
}

export const baselineCommands = {
  serve: (replayed: { statement: Statement; vary?: DriveArgs['vary'] }) => {
    serving = replayed;
  },
  resetCounters: () => meter.reset(),
  counters: () => meter.read(),
  servePeer: (op: PeerOperation) => {
    peerServing = op;
  },
  resetPeerCounters: () => peerMeter.reset(),
  peerCounters: () => peerMeter.read(),
  /**
   * Waits (15 s at most) until none of this process's statements still runs: a peer that timed
   * out leaves its statements running on the server until statement_timeout ends them.
   */
  settle: async () => {
    for (let waited = 0; waited < 15_000; waited += 200) {
      const [row] = await baseline.runner.rows<{ running: number }>(sql`select count(*)::int as running
        from pg_stat_activity
        where application_name in (${APPLICATION.baselines}, ${APPLICATION.peer}) and state = 'active'
          and pid <> pg_backend_pid()`);
      if (!row?.running) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  },
  /** One run: the caller runs a warm-up first (measure.ts), as autocannon's runs have. */
  drive: (args: DriveArgs) => drive(args),
};

serveCommands(
  baselineCommands,
  {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    peerUrl: `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}`,
  },
  async () => {
    server.close();
    peerServer.close();
    await Promise.all([baseline.retire(5), peerDriver.retire(5)]);
  },
);
