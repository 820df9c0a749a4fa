import { createId } from '@paralleldrive/cuid2';
import { and, eq } from 'drizzle-orm';
import type { Database } from '#db/client.ts';
import { agents, agentVersions, conversations, ledgerEntries, persons, sessions } from '#db/schema/index.ts';
import type { Tenant } from './tenants.ts';

/** Person n's phone: distinct for each n (E.164, a fictional range). */
export const fixturePhone = (n: number) => `+1415${String(n).padStart(7, '0')}`;

/** Distinct, increasing timestamps so list order is known: base + n seconds. */
export const at = (n: number) => new Date(Date.UTC(2026, 10, 1, 9, 0, n)).toISOString();

/** An agent with `versions` versions (1..n) in the tenant's workspace. */
export async function insertAgent(
  db: Database,
  tenant: Tenant,
  options: { n?: number; versions?: number } = {},
) {
  const n = options.n ?? 0;
  const agentId = createId();
  await db.insert(agents).values({
    id: agentId,
    workspaceId: tenant.workspaceId,
    name: `Agent ${n}`,
    slug: `agent-${n}-${agentId.slice(0, 6)}`,
    createdAt: at(n),
    updatedAt: at(n),
  });
  const versionIds: string[] = [];
  for (let version = 1; version <= (options.versions ?? 1); version++) {
    const id = createId();
    versionIds.push(id);
    await db.insert(agentVersions).values({
      id,
      agentId,
      version,
      workspaceId: tenant.workspaceId,
      themeId: tenant.themeId,
      systemPrompt: `prompt v${version}`,
      config: { llm: { provider: 'LLM_PROVIDER_1', model: 'LLM_MODEL_1A' } },
    });
  }
  return { agentId, versionIds };
}

/** A session with its person and conversation, on the given agent version, optionally billed. */
export async function insertSession(
  db: Database,
  tenant: Tenant,
  agent: { agentId: string; versionIds: string[] },
  options: {
    n?: number;
    version?: number;
    ledger?: boolean;
    status?: 'PENDING' | 'IN_PROGRESS' | 'COMPLETED';
    type?: 'INBOUND_CALL' | 'WEB_VOICE';
  } = {},
) {
  const n = options.n ?? 0;
  // Person n, one per workspace (email and phone are unique among its live persons).
  const email = `person${n}@example.com`;
  const [known] = await db
    .select({ id: persons.id })
    .from(persons)
    .where(and(eq(persons.workspaceId, tenant.workspaceId), eq(persons.email, email)));
  const personId = known?.id ?? createId();
  if (!known) {
    await db.insert(persons).values({
      id: personId,
      workspaceId: tenant.workspaceId,
      rootPersonId: personId,
      email,
      phone: fixturePhone(n),
      properties: { plan: 'pro' },
    });
  }
  const conversationId = createId();
  await db.insert(conversations).values({
    id: conversationId,
    workspaceId: tenant.workspaceId,
    personId,
    name: `Conversation ${n}`,
  });
  const sessionId = createId();
  const versionId = agent.versionIds[(options.version ?? 1) - 1];
  if (!versionId) throw new Error('no such version');
  await db.insert(sessions).values({
    id: sessionId,
    createdAt: at(n),
    updatedAt: at(n),
    name: `Session ${n}`,
    type: options.type ?? (n % 2 ? 'WEB_VOICE' : 'INBOUND_CALL'),
    status: options.status ?? 'COMPLETED',
    completedAt: at(n + 60),
    startedAt: at(n),
    endedAt: at(n + 60),
    agentId: agent.agentId,
    agentVersionId: versionId,
    workspaceId: tenant.workspaceId,
    personId,
    conversationId,
    completedMeta: { traceId: `trace-${n}` },
  });
  if (options.ledger) {
    await db.insert(ledgerEntries).values({
      workspaceId: tenant.workspaceId,
      amount: -120,
      reason: 'VOICE_USAGE',
      agentId: agent.agentId,
      sessionId,
    });
  }
  return { sessionId, personId, conversationId, versionId };
}
