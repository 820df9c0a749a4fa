import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { build as buildCreateAgent } from '#functions/agents/create.ts';
import {
  build as buildRelay,
  draining,
  EVENT_SOURCE,
  eventBridgePublisher,
  RELAY_BATCH,
} from '#functions/events/relay.ts';
import { silentLogger } from '#functions/http/log.ts';
import {
  type EventBridgeEndpoint,
  type PutEntry,
  startEventBridgeEndpoint,
} from '#local-aws/eventbridge-endpoint.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const BUS = 'voice-agent-admin-test';
let n = 0;

/**
 * The outbox relay end to end: events written by real changes, claimed from the database and put
 * through the real EventBridge client on a local stand-in (AWS_ENDPOINT_URL_EVENTBRIDGE).
 */
describe('the outbox relay', () => {
  const saved = { ...process.env };
  let handle: DatabaseHandle;
  let endpoint: EventBridgeEndpoint;
  let tenant: Tenant;
  let createAgent: ReturnType<typeof buildCreateAgent>;
  let relay: ReturnType<typeof buildRelay>;
  /** Event ids the stand-in refuses for now. */
  let refused = new Set<string>();

  const idOf = (entry: PutEntry) => (JSON.parse(entry.Detail ?? '{}') as { id: string }).id;

  beforeAll(async () => {
    handle = await freshDatabase({ poolMax: 6 });
    endpoint = await startEventBridgeEndpoint({ fail: (entry) => refused.has(idOf(entry)) });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const deps = { database: handle, logger: silentLogger };
    createAgent = buildCreateAgent(deps);
    relay = buildRelay({ ...deps, publish: eventBridgePublisher({ EVENT_BUS_NAME: BUS }) });
    tenant = await createTenant(handle.db);
  });
  afterAll(async () => {
    process.env = saved;
    await endpoint?.close();
    await handle?.close();
  });

  /** `count` events, each by its own change (a created agent: one `agent.created` each). */
  const writeEvents = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const answer = await createAgent(
        apiEvent({
          method: 'POST',
          path: '/agents',
          body: { name: `Relayed ${++n}` },
          caller: tenant,
          scopes: 'agents:write',
          headers: { 'idempotency-key': `relay-${n}` },
        }) as never,
      );
      expect(answer.statusCode).toBe(201);
    }
  };
  const feedOrder = async (published: boolean) =>
    rowsOf<{ id: string }>(
      await handle.db.execute(
        sql`select id from events where (published_at is not null) = ${published} order by txid, seq`,
      ),
    ).map((row) => row.id);
  /**
   * Runs `runs` relays at once until `done` holds of the unpublished events. The horizon is the
   * server's: another database's transaction on it may hold the newest back a moment.
   */
  const relayUntil = async (done: (unpublished: string[]) => boolean, runs = 1) => {
    for (let passes = 0; ; passes++) {
      await Promise.all(Array.from({ length: runs }, () => relay()));
      const unpublished = await feedOrder(false);
      if (done(unpublished) || passes >= 2000) return unpublished;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /** Waits until every unpublished event is below the server's horizon: a relay run sees them all. */
  const allSettled = async () => {
    for (let passes = 0; passes < 2000; passes++) {
      const [row] = rowsOf<{ held: number }>(
        await handle.db.execute(sql`select count(*)::int as held from events where published_at is null
          and txid >= pg_snapshot_xmin(pg_current_snapshot())::text::bigint`),
      );
      if (row?.held === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('the horizon held the events back for 10 s');
  };

  it('publishes events written by real changes once, in feed order, at most 10 a call', async () => {
    await writeEvents(23);
    const before = endpoint.accepted.length;
    expect(await relayUntil((left) => left.length === 0)).toEqual([]);
    const sent = endpoint.accepted.slice(before);
    expect(sent.map(idOf)).toEqual(await feedOrder(true));
    expect(sent).toHaveLength(23);
    expect(Math.max(...endpoint.calls)).toBeLessThanOrEqual(10);
    const rows = rowsOf<{ id: string; type: string; occurred_at: string; data: unknown }>(
      await handle.db.execute(sql`select id, type, occurred_at, data from events order by txid, seq limit 1`),
    );
    const first = rows[0];
    expect(sent[0]).toEqual({
      EventBusName: BUS,
      Source: EVENT_SOURCE,
      DetailType: 'agent.created',
      Detail: expect.any(String),
    });
    expect(JSON.parse(sent[0]?.Detail ?? '')).toEqual({
      id: first?.id,
      type: 'agent.created',
      occurredAt: new Date(first?.occurred_at ?? '').toISOString(),
      workspaceId: tenant.workspaceId,
      data: first?.data,
    });
    // Nothing is left to send: another run sends nothing.
    expect(await relay()).toMatchObject({ claimed: 0, published: 0 });
    expect(endpoint.accepted.length).toBe(before + 23);
  });

  it('leaves refused entries for the next run and publishes nothing twice', async () => {
    const before = endpoint.accepted.length;
    const known = new Set(await feedOrder(true));
    await writeEvents(14);
    const fresh = (await feedOrder(false)).filter((id) => !known.has(id));
    expect(fresh).toHaveLength(14);
    refused = new Set(fresh.filter((_, i) => i % 3 === 1));
    const left = await relayUntil((ids) => ids.length === refused.size);
    expect(new Set(left)).toEqual(refused);
    expect(endpoint.accepted.slice(before).map(idOf)).toEqual(fresh.filter((id) => !refused.has(id)));

    refused = new Set();
    expect(await relayUntil((ids) => ids.length === 0)).toEqual([]);
    const sent = endpoint.accepted.slice(before).map(idOf);
    expect(sent).toHaveLength(14);
    expect(new Set(sent)).toEqual(new Set(fresh));
  });

  it('two relays racing publish each event once', async () => {
    const before = endpoint.accepted.length;
    await writeEvents(40);
    expect(await relayUntil((ids) => ids.length === 0, 2)).toEqual([]);
    const sent = endpoint.accepted.slice(before).map(idOf);
    expect(sent).toHaveLength(40);
    expect(new Set(sent).size).toBe(40);
    const all = endpoint.accepted.map(idOf);
    expect(new Set(all).size).toBe(all.length);
  });

  it('a draining run goes on while batches come back full, and stops at its budget', async () => {
    const before = endpoint.accepted.length;
    await writeEvents(2 * RELAY_BATCH + 30);
    // Every event below the server's horizon first (see relayUntil), so each run sees all waiting.
    await allSettled();
    // No budget: one batch, however much is waiting.
    expect(await draining(relay, 0)()).toMatchObject({ runs: 1, claimed: RELAY_BATCH });
    // A budget: full batches, then the first short one ends the call.
    expect(await draining(relay, 60_000)()).toMatchObject({ runs: 2, claimed: RELAY_BATCH + 30 });
    expect(await feedOrder(false)).toEqual([]);
    const sent = endpoint.accepted.slice(before).map(idOf);
    expect(new Set(sent).size).toBe(2 * RELAY_BATCH + 30);
  });
});
