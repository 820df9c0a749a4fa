import { and, desc, eq, gt, gte, inArray, isNull, lt, or, relations, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import * as v from 'valibot';
import { PublishAgentBody } from '#contract/schemas/requests.ts';
import { CreateAgentBody } from '#contract/schemas/version-requests.ts';
import { createId } from '#db/queries/ids.ts';
import * as tables from '#db/schema/index.ts';

/**
 * "The peer": the same three operations as a team would write them with Drizzle's relational
 * queries (`db.query.x.findMany({ with })`) and map to the response shape in JavaScript. It is
 * served by the same bare `node:http` server as the bare baseline and measured the same way; the
 * API should beat it. Idiomatic, not tuned: no hand-written SQL, no JSON built in the database.
 * It does the API's work: every operation first checks that the calling key is still live (the
 * API's `api_key_live` guard), a write inside its transaction; its ids are the API's.
 */
const {
  agentChanges,
  agents,
  apiKeys,
  agentVersions,
  conversations,
  events,
  ledgerBalances,
  ledgerEntries,
  ledgerUsageAgentDaily,
  ledgerUsageQuarterHourly,
  ledgerUsageReasonQuarterHourly,
  persons,
  sessions,
  themes,
} = tables;

const sessionRelations = relations(sessions, ({ one }) => ({
  agent: one(agents, { fields: [sessions.agentId], references: [agents.id] }),
  agentVersion: one(agentVersions, { fields: [sessions.agentVersionId], references: [agentVersions.id] }),
  conversation: one(conversations, { fields: [sessions.conversationId], references: [conversations.id] }),
  person: one(persons, { fields: [sessions.personId], references: [persons.id] }),
  ledger: one(ledgerEntries, { fields: [sessions.id], references: [ledgerEntries.sessionId] }),
}));
const agentRelations = relations(agents, ({ many }) => ({ versions: many(agentVersions) }));
const versionRelations = relations(agentVersions, ({ one }) => ({
  agent: one(agents, { fields: [agentVersions.agentId], references: [agents.id] }),
}));

const schema = { ...tables, sessionRelations, agentRelations, versionRelations };

/** Postgres's text timestamps (drizzle's `mode: 'string'`) as the API's ISO 8601. */
const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

/** Every `…At` field of a row as ISO 8601: the JS mapping a Drizzle user writes. */
function withIsoTimes<T extends Record<string, unknown>>(row: T): T {
  const out: Record<string, unknown> = { ...row };
  for (const key of Object.keys(out)) if (key.endsWith('At')) out[key] = iso(out[key] as string | null);
  return out as T;
}

export type PeerOperation =
  | { kind: 'sessions'; limit: number; offset: number; after?: { createdAt: string; id: string } }
  | { kind: 'agents'; limit: number }
  | { kind: 'agent'; agentId: string }
  | { kind: 'create' }
  | { kind: 'publish'; agentId: string; versionId: string }
  | { kind: 'heartbeat'; sessionId: string }
  | { kind: 'balance' }
  | { kind: 'usage'; from: string; to: string; groupBy: 'day' | 'agent'; timezone: string };

export function peer(client: postgres.Sql, workspaceId: string, principalId: string, keyId: string) {
  const db = drizzle({ client, schema });
  type Query = Pick<typeof db, 'query'>;

  /** The API's live-key guard as an ORM user writes it: the key, not revoked, not expired. */
  async function keyIsLive(q: Query) {
    const key = await q.query.apiKeys.findFirst({
      columns: { id: true },
      where: and(
        eq(apiKeys.id, keyId),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)),
      ),
    });
    return key !== undefined;
  }

  async function listSessions(op: Extract<PeerOperation, { kind: 'sessions' }>) {
    const order = [desc(sessions.createdAt), desc(sessions.id)];
    const inWindow = op.after
      ? and(
          eq(sessions.workspaceId, workspaceId),
          or(
            lt(sessions.createdAt, op.after.createdAt),
            and(eq(sessions.createdAt, op.after.createdAt), lt(sessions.id, op.after.id)),
          ),
        )
      : eq(sessions.workspaceId, workspaceId);
    // Past an offset, the page's ids first and then their relations, as the API reads it: a
    // relational query with an offset builds the relations of every row it skips.
    const skipping = !op.after && op.offset > 0;
    const rows = await db.query.sessions.findMany({
      where: skipping
        ? inArray(
            sessions.id,
            db
              .select({ id: sessions.id })
              .from(sessions)
              .where(inWindow)
              .orderBy(...order)
              .limit(op.limit + 1)
              .offset(op.offset),
          )
        : inWindow,
      orderBy: order,
      limit: op.limit + 1,
      with: { agent: true, agentVersion: true, conversation: true, person: true, ledger: true },
    });
    return rows.map(({ agent, agentVersion, conversation, person, ledger, ...session }) => ({
      ...withIsoTimes(session),
      agent: { ...withIsoTimes(agent), version: withIsoTimes(agentVersion) },
      conversation: withIsoTimes(conversation),
      person: withIsoTimes(person),
      ledger: ledger ? withIsoTimes(ledger) : null,
    }));
  }

  async function listAgents(op: Extract<PeerOperation, { kind: 'agents' }>) {
    const rows = await db.query.agents.findMany({
      where: eq(agents.workspaceId, workspaceId),
      orderBy: [desc(agents.createdAt), desc(agents.id)],
      limit: op.limit + 1,
      with: { versions: { orderBy: [desc(agentVersions.version)], limit: 1 } },
    });
    return rows.map(({ versions, ...agent }) => ({
      ...withIsoTimes(agent),
      version: withIsoTimes(versions[0] as NonNullable<(typeof versions)[0]>),
    }));
  }

  /** One agent with its latest version, as an ORM user reads it: `findFirst` with the relation. */
  async function getAgent(op: Extract<PeerOperation, { kind: 'agent' }>) {
    const row = await db.query.agents.findFirst({
      where: and(eq(agents.id, op.agentId), eq(agents.workspaceId, workspaceId)),
      with: { versions: { orderBy: [desc(agentVersions.version)], limit: 1 } },
    });
    if (!row) return undefined;
    const { versions, ...agent } = row;
    return {
      ...withIsoTimes(agent),
      version: withIsoTimes(versions[0] as NonNullable<(typeof versions)[0]>),
    };
  }

  /**
   * The create as an ORM user writes it: a transaction, the default theme, the agent and its
   * version, and the same history entry and `agent.created` event the API writes.
   */
  async function createAgent(body: { name: string; description?: string; version: Record<string, unknown> }) {
    return db.transaction(async (tx) => {
      if (!(await keyIsLive(tx))) throw new KeyNotLive();
      const theme = await tx.query.themes.findFirst({
        where: and(eq(themes.workspaceId, workspaceId), eq(themes.isDefault, true)),
      });
      const [agent] = await tx
        .insert(agents)
        .values({
          workspaceId,
          name: body.name,
          description: body.description ?? null,
          slug: body.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
          createdBy: principalId,
          updatedBy: principalId,
        })
        .returning();
      if (!agent || !theme) throw new Error('insert returned nothing');
      const v = body.version as {
        config?: unknown;
        systemPrompt?: string;
        inputMode?: string[];
      };
      const [version] = await tx
        .insert(agentVersions)
        .values({
          id: createId(),
          agentId: agent.id,
          version: 1,
          workspaceId,
          themeId: theme.id,
          config: (v.config ?? null) as never,
          systemPrompt: v.systemPrompt ?? null,
          inputMode: (v.inputMode ?? ['WEB_VOICE']) as never,
          createdBy: principalId,
          updatedBy: principalId,
        })
        .returning();
      if (!version) throw new Error('insert returned nothing');
      await tx.insert(agentChanges).values({
        id: createId(),
        createdAt: agent.updatedAt,
        workspaceId,
        agentId: agent.id,
        agentVersionId: version.id,
        operation: 'create-agent',
        principalId,
        keyId,
        etagBefore: null,
        etagAfter: etagOf(agent),
      });
      await tx.insert(events).values({
        type: 'agent.created',
        workspaceId,
        data: { agentId: agent.id, name: agent.name, slug: agent.slug, versionId: version.id },
      });
      return { ...withIsoTimes(agent), version: withIsoTimes(version) };
    });
  }

  /** The ETag as the API computes it. */
  const etagOf = (agent: { id: string; updatedAt: string }) =>
    `"${agent.id}.${Date.parse(iso(agent.updatedAt) ?? '')}"`;

  /**
   * The publish as an ORM user writes it: a transaction locking the agent row, a check that the
   * version is the agent's, the update, the history entry and the `agent.published` event the API
   * writes, and the latest version for the answer.
   */
  async function publish(op: Extract<PeerOperation, { kind: 'publish' }>, versionId: string) {
    return db.transaction(async (tx) => {
      if (!(await keyIsLive(tx))) throw new KeyNotLive();
      const [current] = await tx
        .select()
        .from(agents)
        .where(and(eq(agents.id, op.agentId), eq(agents.workspaceId, workspaceId)))
        .for('update');
      if (!current) return undefined;
      const version = await tx.query.agentVersions.findFirst({
        where: and(eq(agentVersions.id, versionId), eq(agentVersions.agentId, current.id)),
      });
      if (!version || current.status === 'ARCHIVED' || current.status === 'COMPLETED') return undefined;
      const now = new Date(Math.max(Date.now(), Date.parse(iso(current.updatedAt) ?? '') + 1)).toISOString();
      const [agent] = await tx
        .update(agents)
        .set({
          status: 'PUBLISHED',
          publishedVersionId: version.id,
          publishedAt: now,
          publishedBy: principalId,
          updatedAt: now,
          updatedBy: principalId,
        })
        .where(eq(agents.id, current.id))
        .returning();
      if (!agent) throw new Error('update returned nothing');
      await tx.insert(agentChanges).values({
        id: createId(),
        createdAt: now,
        workspaceId,
        agentId: agent.id,
        agentVersionId: version.id,
        operation: 'publish-agent',
        principalId,
        keyId,
        etagBefore: etagOf(current),
        etagAfter: etagOf(agent),
      });
      await tx.insert(events).values({
        type: 'agent.published',
        workspaceId,
        data: {
          agentId: agent.id,
          name: agent.name,
          slug: agent.slug,
          status: agent.status,
          versionId: version.id,
          previousVersionId: current.publishedVersionId,
          publishedAt: iso(agent.publishedAt),
        },
      });
      const latest = await tx.query.agentVersions.findFirst({
        where: eq(agentVersions.agentId, agent.id),
        orderBy: [desc(agentVersions.version)],
      });
      return { ...withIsoTimes(agent), version: latest ? withIsoTimes(latest) : null };
    });
  }

  /**
   * The heartbeat as an ORM user writes it: the update of an IN_PROGRESS session; when none
   * matched, a read to tell a missing session (404) from one in another status (409).
   */
  async function heartbeat(op: Extract<PeerOperation, { kind: 'heartbeat' }>) {
    const [row] = await db
      .update(sessions)
      .set({
        lastHeartbeatAt: sql`now()`,
        updatedAt: sql`greatest(now(), ${sessions.updatedAt} + interval '1 millisecond')`,
      })
      .where(
        and(
          eq(sessions.id, op.sessionId),
          eq(sessions.workspaceId, workspaceId),
          eq(sessions.status, 'IN_PROGRESS'),
        ),
      )
      .returning({ at: sessions.lastHeartbeatAt });
    if (row) return 204;
    const found = await db.query.sessions.findFirst({
      columns: { status: true },
      where: and(eq(sessions.id, op.sessionId), eq(sessions.workspaceId, workspaceId)),
    });
    return found ? 409 : 404;
  }

  /** The balance as an ORM user reads it: the row by its key. */
  async function balance() {
    const row = await db.query.ledgerBalances.findFirst({
      where: eq(ledgerBalances.workspaceId, workspaceId),
    });
    return {
      workspaceId,
      balance: row?.balance ?? 0,
      lastEntryId: row?.lastEntryId ?? null,
      lastEntryAt: iso(row?.lastEntryAt ?? null),
      lowBalanceThreshold: row?.lowBalanceThreshold ?? 0,
    };
  }

  /**
   * The usage report as an ORM user writes it over the API's rollups (kept by the schema's
   * trigger), the local days by Postgres's zone data, and the same document the API answers: by
   * day, a group-by of the window's quarter-hours; by agent, the daily rollup for the window's whole
   * UTC days and the quarter-hours for its ends. Whole quarter-hours make whole local days in every
   * zone of today; the API also reads the entries of a bucket a historical offset cuts.
   */
  async function usage(op: Extract<PeerOperation, { kind: 'usage' }>) {
    const { from, to, timezone, groupBy } = op;
    const start = sql`${from}::timestamp at time zone ${timezone}`;
    const end = sql`(${to}::date + 1)::timestamp at time zone ${timezone}`;
    const totals = (
      t: Record<'amount' | 'entries' | 'sessions' | 'voiceSeconds', Parameters<typeof sql>[1]>,
    ) => ({
      amount: sql<string>`sum(${t.amount})`,
      entries: sql<string>`sum(${t.entries})`,
      sessions: sql<string>`sum(${t.sessions})`,
      voiceSeconds: sql<string>`coalesce(sum(${t.voiceSeconds}), 0)`,
    });
    const byDay = () => {
      const t = ledgerUsageReasonQuarterHourly;
      return (
        db
          .select({
            key: sql<string>`to_char(${t.bucket} at time zone ${timezone}, 'YYYY-MM-DD')`,
            ...totals(t),
          })
          .from(t)
          .where(and(eq(t.workspaceId, workspaceId), gte(t.bucket, start), lt(t.bucket, end)))
          // By position: the key's zone is a parameter, and two parameters are two expressions to Postgres.
          .groupBy(sql`1`)
          .orderBy(sql`1`)
      );
    };
    const byAgent = () => {
      // The first UTC midnight at or after the start, and the last at or before the end.
      const daysFrom = sql`date_trunc('day', ${start} + interval '1 day' - interval '1 microsecond', 'UTC')`;
      const daysTo = sql`date_trunc('day', ${end}, 'UTC')`;
      const q = ledgerUsageQuarterHourly;
      const d = ledgerUsageAgentDaily;
      const columns = (t: typeof q | typeof d) => ({
        agentId: t.agentId,
        amount: t.amount,
        entries: t.entries,
        sessions: t.sessions,
        voiceSeconds: t.voiceSeconds,
      });
      const counted = db
        .select(columns(d))
        .from(d)
        .where(
          and(
            eq(d.workspaceId, workspaceId),
            gte(d.day, sql`(${daysFrom} at time zone 'UTC')::date`),
            lt(d.day, sql`(${daysTo} at time zone 'UTC')::date`),
          ),
        )
        .unionAll(
          db
            .select(columns(q))
            .from(q)
            .where(
              and(
                eq(q.workspaceId, workspaceId),
                gte(q.bucket, start),
                lt(q.bucket, end),
                or(lt(q.bucket, daysFrom), gte(q.bucket, daysTo)),
              ),
            ),
        )
        .as('counted');
      return db
        .select({ key: counted.agentId, ...totals(counted) })
        .from(counted)
        .groupBy(counted.agentId)
        .orderBy(sql`1 nulls last`);
    };
    const rows = groupBy === 'agent' ? await byAgent() : await byDay();
    const groups = rows.map((g) => ({
      key: g.key,
      amount: Number(g.amount),
      entries: Number(g.entries),
      sessions: Number(g.sessions),
      voiceSeconds: Number(g.voiceSeconds),
    }));
    const sum = (field: 'amount' | 'entries' | 'sessions' | 'voiceSeconds') =>
      groups.reduce((total, g) => total + g[field], 0);
    const total = {
      amount: sum('amount'),
      entries: sum('entries'),
      sessions: sum('sessions'),
      voiceSeconds: sum('voiceSeconds'),
    };
    return { from, to, timezone, groupBy, groups, total };
  }

  /** Status and the JSON body; a list also gets its `Link` when another page follows. */
  const answer = async (
    op: PeerOperation,
    body: string,
  ): Promise<{ status: number; body: string; link?: string }> => {
    if (op.kind === 'create') {
      // Validated as the API validates it (the same schema), so the two do the same work.
      const input = v.parse(CreateAgentBody, JSON.parse(body)) as Parameters<typeof createAgent>[0];
      return { status: 201, body: JSON.stringify(await createAgent(input)) };
    }
    if (op.kind === 'publish') {
      const { versionId } = v.parse(PublishAgentBody, JSON.parse(body));
      const agent = await publish(op, versionId);
      return agent ? { status: 200, body: JSON.stringify(agent) } : { status: 409, body: '{}' };
    }
    // The reads and the heartbeat are one statement each: the key is checked before it.
    if (!(await keyIsLive(db))) throw new KeyNotLive();
    if (op.kind === 'agent') {
      const agent = await getAgent(op);
      return agent ? { status: 200, body: JSON.stringify(agent) } : { status: 404, body: '{}' };
    }
    if (op.kind === 'heartbeat') return { status: await heartbeat(op), body: '' };
    if (op.kind === 'balance') return { status: 200, body: JSON.stringify(await balance()) };
    if (op.kind === 'usage') return { status: 200, body: JSON.stringify(await usage(op)) };
    const rows = op.kind === 'sessions' ? await listSessions(op) : await listAgents(op);
    const page = rows.slice(0, op.limit);
    const link = rows.length > op.limit ? `</?limit=${op.limit}&offset=${op.limit}>; rel="next"` : undefined;
    return { status: 200, body: JSON.stringify(page), link };
  };
  return (op: PeerOperation, body: string): Promise<{ status: number; body: string; link?: string }> =>
    answer(op, body).catch((error: unknown) => {
      if (error instanceof KeyNotLive) return { status: 403, body: '{"type":"invalid-key"}' };
      throw error;
    });
}

/** The calling key was revoked or expired: the API's 403. */
class KeyNotLive extends Error {}
