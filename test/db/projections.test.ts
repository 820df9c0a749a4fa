import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentList } from '#contract/schemas/agent.ts';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreate } from '#functions/agents/create.ts';
import { build as buildAgents } from '#functions/agents/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildSessions } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** Every table an answer reads from. */
const TABLES = ['sessions', 'agents', 'agent_versions', 'conversations', 'persons', 'ledger_entries'];

/**
 * The answers show the fields their projections list, not whatever the tables hold: a column added
 * without a migration (as a later migration would add one) changes no answer.
 */
describe('projections list their fields', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, tenant, { versions: 2 });
    for (let n = 1; n <= 3; n++) await insertSession(handle.db, tenant, agent, { n, ledger: n !== 2 });
  });
  afterAll(() => handle.close());

  const answers = async () => {
    const deps = { database: handle, logger: silentLogger };
    const sessions = await buildSessions(deps)(
      apiEvent({ path: '/sessions', query: 'limit=2', caller: tenant }),
    );
    const agents = await buildAgents(deps)(apiEvent({ path: '/agents', caller: tenant }));
    return { sessions, agents };
  };

  it('answers the same lists, and creates agents of the same shape, after columns are added to every table', async () => {
    const before = await answers();
    bodyOf(SessionList, before.sessions);
    bodyOf(AgentList, before.agents);

    for (const table of TABLES) {
      await handle.db.execute(
        sql.raw(`alter table ${table} add column internal_note text not null default 'not for clients'`),
      );
    }
    const after = await answers();
    expect(after.sessions.body).toBe(before.sessions.body);
    expect(after.sessions.headers.link).toBe(before.sessions.headers.link);
    expect(after.agents.body).toBe(before.agents.body);
    expect(after.sessions.body).not.toContain('not for clients');

    const created = await buildCreate({ database: handle, logger: silentLogger })(
      apiEvent({ method: 'POST', path: '/agents', body: { name: 'Added later' }, caller: tenant }),
    );
    expect(created.statusCode).toBe(201);
    // The strict schema refuses any field it does not name.
    bodyOf(Agent, created);
    expect(created.body).not.toContain('not for clients');
  });
});
