import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { checkFunctions, checkStatements } from '#test/helpers/schema-safety-net.ts';
import { SAMPLES, seed } from './statement-samples.ts';

/**
 * The schema safety net: every statement the query modules send (found by running every function
 * of db/queries that takes a runner, each variant once) and every function and trigger the
 * migrations define, on a freshly migrated database. A migration renaming a column or a table
 * passes the drift gate (db/schema and the migrations agree) and breaks every statement or
 * function body still naming the old one: this names each.
 */
describe('the schema safety net', () => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  /** The net's findings on a fresh database, seeded, after `alter` (the statements of a migration). */
  async function net(alter: string[] = []) {
    handle = await freshDatabase();
    const seeded = await seed(handle.db);
    for (const statement of alter) await handle.db.execute(sql.raw(statement));
    const statements = await checkStatements(handle, SAMPLES, seeded);
    const functions = await checkFunctions(handle);
    return {
      ...statements,
      functions,
      names: [...statements.broken, ...functions.broken].map((b) => b.name),
    };
  }

  it('runs every statement of db/queries and calls every function of the migrations: none broken', async () => {
    const found = await net();
    expect(found.uncovered, 'functions of db/queries with no sample in test/db/statement-samples.ts').toEqual(
      [],
    );
    expect(found.silent, 'samples that sent no statement').toEqual([]);
    expect(found.broken).toEqual([]);
    expect(found.functions.broken).toEqual([]);
    expect(found.functions.checked).toEqual(
      expect.arrayContaining([
        'function api_key_live(character varying)',
        'trigger ledger_entries_booked on ledger_entries (function ledger_entries_booked) insert',
      ]),
    );
    expect(found.statements).toBeGreaterThan(50);
  }, 120_000);

  it('names the function, and every statement, still reading a renamed column (api_keys.revoked_at)', async () => {
    const found = await net(['alter table api_keys rename column revoked_at to revoked_on']);
    // Migration 0006's guard: PL/pgSQL, unchecked when created, broken when called.
    expect(found.names).toContain('function api_key_live(character varying)');
    expect(found.names).toContain('db/queries/api-keys.ts authenticate #1');
    // Every route's first statement carries the guard.
    expect(found.names).toContain('db/queries/sessions.ts pageSessionsJson (sample 1) #1');
    expect(found.names).toContain('db/queries/agent-changes.ts publishAgent #1');
    expect(found.names).toContain('db/queries/manage-api-keys.ts revokeApiKeyOf');
  }, 120_000);

  it('names the statements reading a renamed table (agent_versions) and column (sessions.conversation_id)', async () => {
    const found = await net([
      'alter table agent_versions rename to agent_revisions',
      'alter table sessions rename column conversation_id to conversation_ref',
    ]);
    expect(found.names).toEqual(
      expect.arrayContaining([
        'db/queries/agents.ts getAgentJson #1',
        'db/queries/versions.ts getConfigurationPair #1',
        'db/queries/create-agent.ts createAgent #1',
        'db/queries/sessions.ts getSessionJson #1',
        'db/queries/create-session.ts createSession #1',
      ]),
    );
    expect(found.names).not.toContain('function api_key_live(character varying)');
  }, 120_000);

  it("names a trigger's function reading a renamed column (ledger_entries.amount)", async () => {
    const found = await net(['alter table ledger_entries rename column amount to units']);
    expect(found.names).toContain(
      'trigger ledger_entries_booked on ledger_entries (function ledger_entries_booked) insert',
    );
    expect(found.names).toContain(
      'db/queries/ledger.ts readBalance #1'.replace('readBalance', 'getLedgerEntryJson'),
    );
  }, 120_000);
});
