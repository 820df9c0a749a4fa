import { type SQL, sql } from 'drizzle-orm';
import type { Database } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { createWorkspace } from '#db/queries/workspaces.ts';
import { withConstraintsRebuilt } from './bulk-load.ts';

/** How many rows of each kind a workspace of `sessions` sessions gets: a busy account's proportions. */
export function shapeOf(sessions: number) {
  const agents = Math.max(4, Math.round(sessions / 500));
  // Sessions i with i % 10 in {0, 1} are pending or in progress; the rest completed, each billed.
  const open = Math.floor(sessions / 10) * 2 + Math.min(sessions % 10, 2);
  return {
    sessions,
    agents,
    agentVersions: agents * VERSIONS_PER_AGENT,
    persons: Math.max(1, Math.round(sessions / 5)),
    conversations: Math.max(1, Math.round(sessions / 4)),
    // One usage entry per completed session, one refill per agent, the workspace's trial credit, and
    // metered usage (ten entries a session, over the last 30 days: GET /usage's month).
    ledgerEntries: sessions - open + agents + 1 + sessions * METERED_PER_SESSION,
  };
}
export type Shape = ReturnType<typeof shapeOf>;

const VERSIONS_PER_AGENT = 3;
const METERED_PER_SESSION = 10;

/** A valid stored version config (spec: Version configuration). */
const CONFIG = JSON.stringify({
  llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A', temperature: 0.7 },
  tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'voice-1' },
  stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
});

export interface SeededWorkspace {
  workspaceId: string;
  name: string;
  shape: Shape;
}

/**
 * Fills a new workspace with `sessions` sessions and everything they point at, one set-based
 * statement per table (generate_series, no per-row round trips). Ids are derived from
 * (kind, tag, n) with md5, so a child row names its parent without a join; 24 lower-case
 * characters like the cuid2 ids the API makes. `tag` must differ between workspaces.
 */
export async function seedWorkspace(db: Database, input: SeedInput): Promise<SeededWorkspace> {
  const shape = shapeOf(input.sessions);
  const { id: ws, themeId } = await createWorkspace(db, input.name);
  const by = input.principalId;
  const id = (kind: string, n: SQL) =>
    sql`('c' || left(md5(${`${kind}:${input.tag}:`} || (${n})::text), 23))`;
  const agentId = (n: SQL) => id('agent', n);
  const versionId = (n: SQL, v: SQL) => id('version', sql`(${n})::text || '.' || (${v})::text`);
  const personId = (n: SQL) => id('person', n);
  const conversationId = (n: SQL) => id('conversation', n);
  const { agents, persons, conversations, sessions } = shape;
  // Agents are older than every session; sessions go back five minutes per pair (ties exercise `id desc`).
  const origin = sql`(date_trunc('second', now()) - interval '400 days')`;
  const newest = sql`date_trunc('second', now())`;

  await db.execute(sql`
    insert into agents (id, created_at, updated_at, created_by, updated_by, workspace_id, name, description,
      slug, status, published_version_id, published_at, published_by)
    select ${agentId(sql`n`)}, t, t, ${by}, ${by}, ${ws}, 'Agent ' || n, 'Benchmark agent number ' || n,
      'agent-' || n, 'PUBLISHED', ${versionId(sql`n`, sql`${VERSIONS_PER_AGENT}::int`)}, t, ${by}
    from generate_series(0, ${agents - 1}::int) n, lateral (select ${origin} + n * interval '1 minute' as t) x`);

  await db.execute(sql`
    insert into agent_versions (id, created_at, updated_at, created_by, updated_by, agent_id, version,
      workspace_id, theme_id, config, system_prompt, input_mode, languages)
    select ${versionId(sql`n`, sql`v`)}, t, t, ${by}, ${by}, ${agentId(sql`n`)}, v, ${ws}, ${themeId},
      ${CONFIG}::jsonb, 'You are agent ' || n || ', version ' || v || '. Be brief and friendly.',
      '{WEB_VOICE,PHONE}', '{en,es}'
    from generate_series(0, ${agents - 1}::int) n, generate_series(1, ${VERSIONS_PER_AGENT}::int) v,
      lateral (select ${origin} + n * interval '1 minute' + v * interval '1 day' as t) x`);

  await db.execute(sql`
    insert into persons (id, created_at, updated_at, workspace_id, properties, first_seen_at, last_seen_at,
      identified_at, email, phone, root_person_id)
    select p.id, t, t, ${ws}, jsonb_build_object('plan', case when n % 3 = 0 then 'pro' else 'free' end), t, t, t,
      'person' || n || '@example.com', '+1555' || lpad(n::text, 7, '0'), p.id
    from generate_series(0, ${persons - 1}::int) n,
      lateral (select ${personId(sql`n`)} as id, ${origin} + n * interval '10 seconds' as t) p`);

  await db.execute(sql`
    insert into conversations (id, created_at, updated_at, workspace_id, person_id, name)
    select ${conversationId(sql`n`)}, t, t, ${ws}, ${personId(sql`n % ${persons}::int`)}, 'Conversation ' || n
    from generate_series(0, ${conversations - 1}::int) n,
      lateral (select ${origin} + n * interval '10 seconds' as t) x`);

  // Session i: agent i % A on version 1 + (i / A) % 3, conversation i % C (and that conversation's person).
  await db.execute(sql`
    insert into sessions (id, created_at, updated_at, name, type, status, started_at, last_heartbeat_at,
      ended_at, completed_at, record_audio, agent_id, agent_version_id, workspace_id, person_id,
      conversation_id, completed_meta)
    select x.id, x.t, x.t, 'Session ' || i, (case when i % 2 = 0 then 'INBOUND_CALL' else 'WEB_VOICE' end)::session_type,
      x.status, case when x.status <> 'PENDING' then x.t + interval '1 minute' end,
      case when x.status <> 'PENDING' then x.t + interval '9 minutes' end,
      case when x.status = 'COMPLETED' then x.t + interval '10 minutes' end,
      case when x.status = 'COMPLETED' then x.t + interval '10 minutes' end,
      i % 4 = 0, ${agentId(sql`i % ${agents}::int`)},
      ${versionId(sql`i % ${agents}::int`, sql`1 + (i / ${agents}::int) % ${VERSIONS_PER_AGENT}::int`)},
      ${ws}, ${personId(sql`(i % ${conversations}::int) % ${persons}::int`)},
      ${conversationId(sql`i % ${conversations}::int`)},
      case when x.status = 'COMPLETED' then jsonb_build_object('traceId', md5(x.id)) end
    from generate_series(0, ${sessions - 1}::int) i,
      lateral (select ${id('session', sql`i`)} as id, ${newest} - (i / 2) * interval '5 minutes' as t,
        (case i % 10 when 0 then 'PENDING' when 1 then 'IN_PROGRESS' else 'COMPLETED' end)::session_status as status) x`);

  await db.execute(sql`
    insert into ledger_entries (id, created_at, updated_at, created_by, updated_by, workspace_id, amount, reason,
      reason_details, agent_id, session_id)
    select 'c' || left(md5('ledger:' || s.id), 23), s.completed_at, s.completed_at, ${by}, ${by}, s.workspace_id,
      -(60 + get_byte(decode(md5(s.id), 'hex'), 0)), 'VOICE_USAGE'::ledger_reason, 'Voice minutes', s.agent_id, s.id
    from sessions s where s.workspace_id = ${ws} and s.status = 'COMPLETED'
    union all
    select 'c' || left(md5('refill:' || a.id), 23), a.created_at, a.created_at, ${by}, ${by}, a.workspace_id,
      10000, 'PURCHASE_REFILL'::ledger_reason, 'Monthly top-up', a.id, null
    from agents a where a.workspace_id = ${ws}`);

  // Metered usage without a session (the ledger's trigger keeps the balance and the rollup).
  await db.execute(sql`
    insert into ledger_entries (id, created_at, updated_at, created_by, updated_by, workspace_id, amount, reason,
      reason_details, agent_id)
    select ${id('metered', sql`i`)}, t, t, ${by}, ${by}, ${ws}, -(1 + i % 5),
      (case when i % 3 = 0 then 'SMS_USAGE' else 'VOICE_USAGE' end)::ledger_reason, 'Metered', ${agentId(sql`i % ${agents}::int`)}
    from generate_series(0, ${sessions * METERED_PER_SESSION - 1}::int) i,
      lateral (select ${newest} - i * (interval '30 days' / ${sessions * METERED_PER_SESSION}::int) as t) x`);

  return { workspaceId: ws, name: input.name, shape };
}

export const SEEDED_TABLES = [
  // Not seeded, but its foreign key holds the agents' key the load drops.
  'agent_changes',
  'agents',
  'agent_versions',
  'persons',
  'conversations',
  'sessions',
  'ledger_entries',
] as const;

export interface SeedInput {
  name: string;
  tag: string;
  sessions: number;
  principalId: string;
}

/** Several workspaces in one transaction, keys and indexes rebuilt once at the end (bulk-load.ts). */
export function seedWorkspaces(db: Database, inputs: readonly SeedInput[]): Promise<SeededWorkspace[]> {
  return withConstraintsRebuilt(db, SEEDED_TABLES, async (tx) => {
    const seeded: SeededWorkspace[] = [];
    for (const input of inputs) seeded.push(await seedWorkspace(tx, input));
    return seeded;
  });
}

/** Rows per table in a workspace, keyed like `Shape`; what the reuse check and the tests compare. */
export async function countRows(db: Database, workspaceId: string): Promise<Shape> {
  const [row] = rowsOf<Record<(typeof SEEDED_TABLES)[number], string | number>>(
    await db.execute(
      sql`select ${sql.join(
        SEEDED_TABLES.map(
          (t) =>
            sql`(select count(*) from ${sql.identifier(t)} where workspace_id = ${workspaceId})::int as ${sql.identifier(t)}`,
        ),
        sql`, `,
      )}`,
    ),
  );
  if (!row) throw new Error('count returned no row');
  return {
    agents: Number(row.agents),
    agentVersions: Number(row.agent_versions),
    persons: Number(row.persons),
    conversations: Number(row.conversations),
    sessions: Number(row.sessions),
    ledgerEntries: Number(row.ledger_entries),
  };
}
