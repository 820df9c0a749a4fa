import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '#contract/routes.ts';
import { AgentList } from '#contract/schemas/agent.ts';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { type SeededWorkspace, seedDemoWorkspace } from '#db/seed/demo-workspace.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { pageAgents, pageSessions } from '#test/helpers/pages.ts';

describe('seedDemoWorkspace', () => {
  let handle: DatabaseHandle;
  let seeded: SeededWorkspace;
  const query = async <T>(statement: ReturnType<typeof sql>) => rowsOf<T>(await handle.db.execute(statement));

  beforeAll(async () => {
    handle = await freshDatabase();
    seeded = await seedDemoWorkspace(handle.db, { name: 'Seed test' });
  });
  afterAll(() => handle.close());

  it('creates the counted rows in its own workspace', async () => {
    const [row] = await query<Record<string, number>>(sql`select
      (select count(*)::int from agents where workspace_id = ${seeded.workspaceId}) as "agents",
      (select count(*)::int from agent_versions where workspace_id = ${seeded.workspaceId}) as "agentVersions",
      (select count(*)::int from persons where workspace_id = ${seeded.workspaceId}) as "persons",
      (select count(*)::int from conversations where workspace_id = ${seeded.workspaceId}) as "conversations",
      (select count(*)::int from sessions where workspace_id = ${seeded.workspaceId}) as "sessions",
      (select count(*)::int from ledger_entries where workspace_id = ${seeded.workspaceId}) as "ledgerEntries",
      (select count(*)::int from events where workspace_id = ${seeded.workspaceId}) as "events"`);
    expect(row).toEqual(seeded.counts);
    expect(seeded.counts.sessions).toBe(60);
    expect(seeded.counts.agents).toBeGreaterThanOrEqual(3);
    expect(seeded.counts.agentVersions).toBeGreaterThan(seeded.counts.agents as number);
  });

  it('covers both session types in all three statuses, with timestamps that fit the status', async () => {
    const rows = await query<{ type: string; status: string; n: number; consistent: boolean }>(sql`
      select type, status, count(*)::int as n, bool_and(case status
        when 'PENDING' then started_at is null and ended_at is null and completed_at is null
          and last_heartbeat_at is null and completed_meta is null
        when 'IN_PROGRESS' then started_at > created_at and last_heartbeat_at >= started_at
          and ended_at is null and completed_at is null and completed_meta is null
        else started_at > created_at and ended_at > started_at and completed_at >= ended_at
          and last_heartbeat_at <= ended_at and completed_meta->>'traceId' is not null
        end and updated_at >= created_at and updated_at <= now()) as consistent
      from sessions where workspace_id = ${seeded.workspaceId} group by 1, 2 order by 1, 2`);
    expect(rows.map((r) => `${r.type} ${r.status}`)).toEqual([
      'INBOUND_CALL PENDING',
      'INBOUND_CALL IN_PROGRESS',
      'INBOUND_CALL COMPLETED',
      'WEB_VOICE PENDING',
      'WEB_VOICE IN_PROGRESS',
      'WEB_VOICE COMPLETED',
    ]);
    expect(rows.every((r) => r.consistent)).toBe(true);
  });

  it('gives sessions distinct creation times over several days', async () => {
    const [row] = await query<{ distinct: number; days: number }>(sql`
      select count(distinct created_at)::int as distinct,
        extract(day from max(created_at) - min(created_at))::int as days
      from sessions where workspace_id = ${seeded.workspaceId}`);
    expect(row?.distinct).toBe(60);
    expect(row?.days).toBeGreaterThanOrEqual(20);
  });

  it('records each session through the write path: its events at its times, and usage booked at most once', async () => {
    const rows = await query<{
      status: string;
      created: number;
      started: number;
      completed: number;
      usage: number;
      entries: number;
      keyed: boolean;
      timely: boolean;
    }>(sql`
      select s.status,
        (select count(*)::int from events e where e.type = 'session.created' and e.data->>'sessionId' = s.id) as created,
        (select count(*)::int from events e where e.type = 'session.started' and e.data->>'sessionId' = s.id) as started,
        (select count(*)::int from events e where e.type = 'session.completed' and e.data->>'sessionId' = s.id) as completed,
        (select count(*)::int from events e where e.type = 'usage.booked' and e.data->>'sessionId' = s.id) as usage,
        (select count(*)::int from ledger_entries l where l.session_id = s.id and l.reason = 'VOICE_USAGE') as entries,
        coalesce((select bool_and(l.idempotency_key = 'session-usage:' || s.id and l.created_at = s.completed_at)
          from ledger_entries l where l.session_id = s.id), true) as keyed,
        coalesce((select bool_and(e.occurred_at = case e.type when 'session.created' then s.created_at
            when 'session.started' then s.started_at else s.completed_at end
          and e.data->>'status' = case e.type when 'session.created' then 'PENDING'
            when 'session.started' then 'IN_PROGRESS' else 'COMPLETED' end)
          from events e where e.data->>'sessionId' = s.id), false) as timely
      from sessions s where s.workspace_id = ${seeded.workspaceId}`);
    expect(rows).toHaveLength(60);
    for (const r of rows) {
      expect(r).toMatchObject({
        created: 1,
        started: r.status === 'PENDING' ? 0 : 1,
        completed: r.status === 'COMPLETED' ? 1 : 0,
        usage: r.entries,
        keyed: true,
        timely: true,
      });
      expect(r.entries).toBeLessThanOrEqual(r.status === 'COMPLETED' ? 1 : 0);
    }
    const [types] = await query<{ types: string; events: number }>(sql`
      select string_agg(distinct type, ' ' order by type) as types, count(*)::int as events
      from events where workspace_id = ${seeded.workspaceId}`);
    expect(types?.types).toBe('session.completed session.created session.started usage.booked');
    expect(types?.events).toBe(seeded.counts.events);
  });

  it('makes one person per caller and a conversation per person and agent, as POST /sessions does', async () => {
    const [row] = await query<{ persons: number; identified: number; sharing: number; threads: boolean }>(sql`
      select (select count(*)::int from persons where workspace_id = ${seeded.workspaceId}) as persons,
        (select count(*)::int from persons where workspace_id = ${seeded.workspaceId}
          and (email is not null or phone is not null)) as identified,
        (select count(*)::int from (select email from persons where workspace_id = ${seeded.workspaceId}
          and email is not null group by email having count(*) > 1) d) as sharing,
        (select bool_and(n = 1) from (select count(distinct conversation_id) as n from sessions
          where workspace_id = ${seeded.workspaceId} group by person_id, agent_id) t) as threads`);
    expect(row?.persons).toBeGreaterThan(0);
    expect(row?.identified).toBe(row?.persons);
    expect(row?.sharing).toBe(0);
    expect(row?.threads).toBe(true);
  });

  it('charges VOICE_USAGE on some sessions but not others', async () => {
    const [row] = await query<{ charged: number; free: number }>(sql`
      select count(l.id)::int as charged, count(*) filter (where l.id is null)::int as free
      from sessions s left join ledger_entries l on l.session_id = s.id and l.reason = 'VOICE_USAGE'
      where s.workspace_id = ${seeded.workspaceId}`);
    expect(row?.charged).toBeGreaterThan(0);
    expect(row?.free).toBeGreaterThan(0);
  });

  it('has sessions on different versions of one agent and a published agent', async () => {
    const [row] = await query<{ versions: number }>(sql`
      select max(n)::int as versions from (select count(distinct agent_version_id) as n
      from sessions where workspace_id = ${seeded.workspaceId} group by agent_id) per_agent`);
    expect(row?.versions).toBeGreaterThanOrEqual(2);
    const published = await query<{ ok: boolean }>(sql`
      select a.published_at is not null and v.agent_id = a.id as ok
      from agents a join agent_versions v on v.id = a.published_version_id
      where a.workspace_id = ${seeded.workspaceId} and a.status = 'PUBLISHED'`);
    expect(published).toEqual([{ ok: true }]);
  });

  it('gives persons e-mails and E.164 phones', async () => {
    const [row] = await query<{ emails: number; phones: number }>(sql`
      select count(email)::int as emails, count(phone)::int as phones
      from persons where workspace_id = ${seeded.workspaceId}`);
    expect(row?.emails).toBeGreaterThan(0);
    expect(row?.phones).toBeGreaterThan(0);
  });

  it('reads back through the API queries in the response shapes', async () => {
    const page = await pageSessions(handle.sql, seeded, { limit: 250, offset: 0 });
    expect(page).toHaveLength(60);
    expect(v.safeParse(SessionList, page).issues).toBeUndefined();
    const agents = await pageAgents(handle.sql, seeded, { limit: 250, offset: 0 });
    expect(v.safeParse(AgentList, agents).issues).toBeUndefined();
  });

  it('returns a token with every scope for the new workspace', async () => {
    expect(seeded.token).toMatch(/^vak_/);
    const principal = await authenticate(handle.sql, seeded.token);
    expect(principal?.workspaceId).toBe(seeded.workspaceId);
    expect(principal?.scopes).toEqual([...scopes]);
  });

  it('creates another workspace on every call', async () => {
    const second = await seedDemoWorkspace(handle.db, { sessions: 8 });
    expect(second.workspaceId).not.toBe(seeded.workspaceId);
    expect(second.counts.sessions).toBe(8);
    const [row] = await query<{ workspaces: number }>(
      sql`select count(distinct workspace_id)::int as workspaces from sessions`,
    );
    expect(row?.workspaces).toBe(2);
  });
});
