import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_RETENTION_DAYS } from '#contract/limits.ts';
import { Agent } from '#contract/schemas/agent.ts';
import { type Event, EventList } from '#contract/schemas/event.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { PURGE_LIMITS } from '#functions/events/purge.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildSweep } from '#functions/sessions/sweep.ts';
import { type App, buildApp } from '#test/hardening/support/app.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { bodyOf } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const SCOPES = 'agents:write events:read';

/** The retention purge, run by the scheduled sweep: what it deletes, what it keeps, and the feed after it. */
describe('the event purge', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;
  let n = 0;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const sweep = (limits = PURGE_LIMITS) => buildSweep({ database: handle, logger: silentLogger }, limits)();

  /** `count` agents created through the API, each its agent.created event; their event ids, in feed order. */
  const newEvents = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const agent = bodyOf(
        Agent,
        await app.createAgent(
          apiEvent({
            method: 'POST',
            path: '/agents',
            body: { name: `Purge ${++n}` },
            caller: tenant,
            scopes: SCOPES,
          }),
        ),
      );
      const [row] = rowsOf<{ id: string }>(
        await handle.db.execute(sql`select id::text as id from events where data->>'agentId' = ${agent.id}`),
      );
      ids.push(row?.id as string);
    }
    return ids;
  };
  /** Sets an event's age in days and whether the relay published it. */
  const make = async (id: string, daysOld: number, published: boolean) =>
    handle.db.execute(sql`update events set occurred_at = now() - make_interval(days => ${daysOld}),
      published_at = ${published ? sql`now()` : sql`null`} where id = ${id}::uuid`);
  const kept = async (ids: string[]) =>
    rowsOf<{ id: string }>(
      await handle.db.execute(
        sql`select id::text as id from events where id::text in ${ids} order by txid, seq`,
      ),
    ).map((r) => r.id);
  const page = async (cursor: string, limit = 100) => {
    const answer = await app.listEvents(
      apiEvent({ path: '/events', query: `limit=${limit}&cursor=${cursor}`, caller: tenant, scopes: SCOPES }),
    );
    expect(answer.statusCode).toBe(200);
    return { events: bodyOf(EventList, answer), next: answer.headers['x-next-cursor'] as string };
  };
  /** The feed from `cursor` once `count` events show (another test database's transaction may hold it back). */
  const feedFrom = async (cursor: string, count: number) => {
    for (let polls = 0; ; polls++) {
      const { events } = await page(cursor);
      if (events.length >= count || polls >= 400) return events;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const idsOf = (events: Event[]) => events.map((e) => e.id);
  /** Where the feed ends once every event stored for the workspace shows. */
  const endOfFeed = async () => {
    const [row] = rowsOf<{ n: number }>(
      await handle.db.execute(
        sql`select count(*)::int as n from events where workspace_id = ${tenant.workspaceId}`,
      ),
    );
    for (let polls = 0; ; polls++) {
      const { events, next } = await page('', 250);
      if (events.length >= (row?.n ?? 0) || polls >= 400) return next;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it(`deletes published events older than ${EVENT_RETENTION_DAYS} days; keeps unpublished and younger ones`, async () => {
    const [oldA, oldB, oldUnpublished, young, fresh, freshUnpublished] = (await newEvents(6)) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    await make(oldA, EVENT_RETENTION_DAYS + 5, true);
    await make(oldB, EVENT_RETENTION_DAYS + 1, true);
    await make(oldUnpublished, EVENT_RETENTION_DAYS + 40, false);
    await make(young, EVENT_RETENTION_DAYS - 1, true);
    await make(fresh, 0, true);
    await make(freshUnpublished, 0, false);
    expect(await sweep()).toEqual({ swept: 0, purged: 2 });
    expect(await kept([oldA, oldB, oldUnpublished, young, fresh, freshUnpublished])).toEqual([
      oldUnpublished,
      young,
      fresh,
      freshUnpublished,
    ]);
    // Once the relay publishes the old one, the next run purges it.
    await make(oldUnpublished, EVENT_RETENTION_DAYS + 40, true);
    expect(await sweep()).toEqual({ swept: 0, purged: 1 });
    expect(await sweep()).toEqual({ swept: 0, purged: 0 });
  });

  it('a cursor into the purged range goes on with the next event kept, never an error', async () => {
    const start = await endOfFeed();
    const ids = await newEvents(5);
    const before = await feedFrom(start, 5);
    expect(idsOf(before)).toEqual(ids);
    // Cursors after the first and after the second event, handed out before the purge.
    const afterFirst = (await page(start, 1)).next;
    const afterSecond = (await page(afterFirst, 1)).next;
    for (const id of ids.slice(0, 3)) await make(id, EVENT_RETENTION_DAYS + 1, true);
    expect((await sweep()).purged).toBe(3);
    expect(idsOf(await page(afterFirst).then((p) => p.events))).toEqual(ids.slice(3));
    expect(idsOf(await page(afterSecond).then((p) => p.events))).toEqual(ids.slice(3));
    expect(idsOf(await page(start).then((p) => p.events))).toEqual(ids.slice(3));
    // From the start: the oldest event kept comes first.
    const { events: fromStart } = await page('');
    expect(fromStart.some((e) => ids.slice(0, 3).includes(e.id))).toBe(false);
    expect(idsOf(fromStart).slice(-2)).toEqual(ids.slice(3));
  });

  it('deletes in bounded batches: a run stops after its batches, the next goes on', async () => {
    const ids = await newEvents(5);
    for (const id of ids) await make(id, EVENT_RETENTION_DAYS + 2, true);
    expect(await sweep({ batch: 2, batches: 2 })).toEqual({ swept: 0, purged: 4 });
    expect(await kept(ids)).toHaveLength(1);
    expect(await sweep({ batch: 2, batches: 2 })).toEqual({ swept: 0, purged: 1 });
    expect(await kept(ids)).toEqual([]);
  });
});
