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
      (select count(*)::int from ledger_entries where workspace_id = ${seeded.workspaceId}) as "ledgerEntries"`);
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
