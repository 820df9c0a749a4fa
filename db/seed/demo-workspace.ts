import { and, eq, inArray, sql } from 'drizzle-orm';
import { scopes } from '#contract/routes.ts';
import type { Database } from '../client.ts';
import type { SqlRunner } from '../database.ts';
import { drizzleRunner } from '../drizzle-runner.ts';
import type { CallingKey } from '../queries/api-keys.ts';
import { completeSession } from '../queries/complete-session.ts';
import { createSession } from '../queries/create-session.ts';
import { bookCredit, type NewCredit } from '../queries/ledger.ts';
import { createApiKey } from '../queries/manage-api-keys.ts';
import { heartbeatSession, startSession } from '../queries/session-writes.ts';
import { createWorkspace } from '../queries/workspaces.ts';
import {
  agents,
  agentVersions,
  conversations,
  events,
  ledgerEntries,
  persons,
  sessions,
} from '../schema/index.ts';
import { type PlannedSession, planDemoWorkspace } from './plan.ts';

export interface SeedOptions {
  name?: string;
  /** How many sessions to create (default 60). */
  sessions?: number;
}

export interface SeededWorkspace {
  workspaceId: string;
  /** A bearer token with every scope, shown once. */
  token: string;
  keyId: string;
  counts: Record<string, number>;
}

/**
 * Creates a new workspace full of realistic sample data and a key with every scope, in one
 * transaction (a failure leaves nothing behind). Agents and their versions are inserted as planned,
 * the opening credits booked through POST /ledger/credits' query; every session is recorded through
 * the write path's own queries (those of POST /sessions, start, heartbeat and complete), oldest call
 * first, each at its planned time: so
 * its person, conversation, usage ledger entry and events are exactly what the API would write.
 */
export async function seedDemoWorkspace(db: Database, options: SeedOptions = {}): Promise<SeededWorkspace> {
  const sessionCount = options.sessions ?? 60;
  if (!Number.isInteger(sessionCount) || sessionCount < 1)
    throw new RangeError('sessions must be at least 1');
  return db.transaction(async (t) => {
    const workspace = await createWorkspace(t, options.name ?? 'Demo workspace');
    const key = await createApiKey(t, { workspaceId: workspace.id, name: 'Demo key', scopes });
    const principalId = key.principalId;
    const plan = planDemoWorkspace({
      workspaceId: workspace.id,
      themeId: workspace.themeId,
      principalId,
      sessions: sessionCount,
      now: Date.now(),
    });
    await t.insert(agents).values(plan.agents);
    await t.insert(agentVersions).values(plan.agentVersions);
    const runner = drizzleRunner(t, true);
    // As the demo key: the write path's statements hold the calling key to being live.
    const caller = { workspaceId: workspace.id, keyId: key.id };
    // Through the credit path of POST /ledger/credits, each at its planned time.
    for (const [i, credit] of plan.openingLedger.entries()) {
      await bookCredit(runner, caller, {
        amount: credit.amount,
        reason: credit.reason as NewCredit['reason'],
        reasonDetails: credit.reasonDetails ?? null,
        redemptionCodeId: null,
        idempotencyKey: `demo-credit-${i + 1}`,
        principalId,
        at: credit.createdAt as string,
      });
    }
    for (const step of calls(plan.sessions)) await step.run(runner, caller, principalId);

    for (const { agentId, at } of plan.archived) {
      await t
        .update(agents)
        .set({ status: 'ARCHIVED', archivedAt: at, archivedBy: principalId })
        .where(eq(agents.id, agentId));
      // Its conversations end with it, as an operator archiving a retired line would.
      await t
        .update(conversations)
        .set({ archivedAt: at, archivedBy: principalId })
        .where(
          and(
            eq(conversations.workspaceId, workspace.id),
            inArray(
              conversations.id,
              t.select({ id: sessions.conversationId }).from(sessions).where(eq(sessions.agentId, agentId)),
            ),
          ),
        );
    }
    await markHalfViewed(t, workspace.id, principalId);

    const counts = await countRows(t, workspace.id);
    return { workspaceId: workspace.id, token: key.token, keyId: key.id, counts };
  });
}

type Call = {
  at: string;
  run: (runner: SqlRunner, caller: CallingKey, principalId: string) => Promise<unknown>;
};

/** Every planned session's calls, in the order of their times (a session's own in its order). */
function calls(planned: readonly PlannedSession[]): Call[] {
  const ids = new Map<PlannedSession, string>();
  const idOf = (session: PlannedSession) => {
    const id = ids.get(session);
    if (!id) throw new Error('a call before its session was created');
    return id;
  };
  const all = planned.flatMap((session): Call[] => {
    const { create, start, heartbeat, complete } = session;
    return [
      {
        at: create.at,
        run: async (runner, caller) =>
          ids.set(session, (await createSession(runner, { ...create, ...caller })).id),
      },
      ...(start ? [{ at: start, run: must((r, ws) => startSession(r, ws, idOf(session), start)) }] : []),
      ...(heartbeat
        ? [{ at: heartbeat, run: must((r, ws) => heartbeatSession(r, ws, idOf(session), heartbeat)) }]
        : []),
      ...(complete
        ? [
            {
              at: complete.at,
              run: must((r, ws, by) =>
                completeSession(r, ws, idOf(session), {
                  at: complete.at,
                  endedAt: complete.endedAt,
                  traceId: complete.traceId,
                  usage: complete.usage === null ? null : { amount: complete.usage },
                  principalId: by,
                }),
              ),
            },
          ]
        : []),
    ];
  });
  // Stable: a session's calls at the same instant (a heartbeat as it starts) keep their order.
  return all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** A transition the plan makes is always legal: anything else is a bug in the plan. */
const must =
  (call: Call['run']): Call['run'] =>
  async (...args) => {
    const outcome = (await call(...args)) as { kind: string };
    if (outcome.kind !== 'done') throw new Error(`a planned transition was refused: ${outcome.kind}`);
    return outcome;
  };

/** Every other conversation was read two hours after its last change (no API writes that yet). */
async function markHalfViewed(t: Database, workspaceId: string, by: string) {
  const all = await t
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.workspaceId, workspaceId))
    .orderBy(conversations.createdAt, conversations.id);
  const viewed = all.filter((_, i) => i % 2 === 0).map((c) => c.id);
  if (viewed.length === 0) return;
  await t
    .update(conversations)
    .set({
      lastViewedAt: sql`least(now(), ${conversations.updatedAt} + interval '2 hours')`,
      lastViewedBy: by,
    })
    .where(inArray(conversations.id, viewed));
}

async function countRows(t: Database, workspaceId: string): Promise<Record<string, number>> {
  const tables = { agents, agentVersions, persons, conversations, sessions, ledgerEntries, events };
  const counts: Record<string, number> = {};
  for (const [name, table] of Object.entries(tables)) {
    counts[name] = await t.$count(table, eq(table.workspaceId, workspaceId));
  }
  return counts;
}
