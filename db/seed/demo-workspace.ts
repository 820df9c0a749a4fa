import { createId } from '@paralleldrive/cuid2';
import type { PgTable } from 'drizzle-orm/pg-core';
import { scopes } from '#contract/routes.ts';
import type { Database } from '../client.ts';
import { createApiKey } from '../queries/manage-api-keys.ts';
import { createWorkspace } from '../queries/workspaces.ts';
import { agents, agentVersions, conversations, ledgerEntries, persons, sessions } from '../schema/index.ts';
import { planDemoWorkspace } from './plan.ts';

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

// Well under Postgres's 65,535 bind parameters per statement, even for the widest table.
const CHUNK = 1000;

/**
 * Creates a new workspace full of realistic sample data and a key with every scope, in one
 * transaction (a failure leaves nothing behind) and one multi-row insert per table.
 */
export async function seedDemoWorkspace(db: Database, options: SeedOptions = {}): Promise<SeededWorkspace> {
  const sessionCount = options.sessions ?? 60;
  if (!Number.isInteger(sessionCount) || sessionCount < 1)
    throw new RangeError('sessions must be at least 1');
  return db.transaction(async (t) => {
    const workspace = await createWorkspace(t, options.name ?? 'Demo workspace');
    const principalId = createId();
    const rows = planDemoWorkspace({
      workspaceId: workspace.id,
      themeId: workspace.themeId,
      principalId,
      sessions: sessionCount,
      now: Date.now(),
    });
    // Parents before children: the tenant foreign keys are checked per statement.
    const tables: [keyof typeof rows, PgTable][] = [
      ['persons', persons],
      ['conversations', conversations],
      ['agents', agents],
      ['agentVersions', agentVersions],
      ['sessions', sessions],
      ['ledgerEntries', ledgerEntries],
    ];
    for (const [key, table] of tables) {
      const values = rows[key];
      for (let i = 0; i < values.length; i += CHUNK) {
        await t.insert(table).values(values.slice(i, i + CHUNK));
      }
    }
    const key = await createApiKey(t, {
      workspaceId: workspace.id,
      name: 'Demo key',
      scopes,
      principalId,
    });
    const counts = Object.fromEntries(tables.map(([name]) => [name, rows[name].length]));
    return { workspaceId: workspace.id, token: key.token, keyId: key.id, counts };
  });
}
