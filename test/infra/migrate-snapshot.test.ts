import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { snapshotName, takeClusterSnapshot } from '#functions/cluster-snapshot.ts';
import type { Logger } from '#functions/http/log.ts';
import { applyMigrations, handler } from '#functions/migrate.ts';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';
import { type LocalClusterSnapshots, localClusterSnapshots } from '#local-aws/rds-endpoint.ts';
import { emptyDatabase, freshDatabase, usingPostgres } from '#test/helpers/database.ts';
import { migrationsFolder } from '#test/helpers/migrations.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const CLUSTER = 'voiceagentadmin-prod-databasecluster-abc123';
const PREFIX = 'voiceagentadmin-prod';
const silent: Logger = () => {};
const DDL = ['alter table workspaces add column snapshot_probe int'];
const ADDITIVE = [
  'create table snapshot_probe (id varchar(24) primary key, workspace_id varchar(24) not null)',
  'alter table snapshot_probe add constraint snapshot_probe_fk foreign key (workspace_id) references workspaces (id)',
  'create index snapshot_probe_workspaces on workspaces (created_at)',
];

/**
 * The migration function on a real Postgres server, its RDS calls made by the real
 * `@aws-sdk/client-rds` to the local stand-in (AWS_ENDPOINT_URL_RDS), which records what the
 * database looked like at each call.
 */
describe.runIf(usingPostgres())(
  'a cluster snapshot before migrations that change existing tables (skipped on PGlite: the function connects to a server)',
  () => {
    let endpoint: AwsEndpoint;
    let state: LocalClusterSnapshots;
    let database: DatabaseHandle & { url?: string };
    let inspector: postgres.Sql;
    /** Each RDS call, with whether the probe migration had been applied when it arrived. */
    let calls: { action: string; migrated: boolean }[];
    const saved = { ...process.env };

    const migrated = async () =>
      (
        await inspector`select 1 from information_schema.columns where table_name = 'workspaces' and column_name = 'snapshot_probe'`
      ).length === 1;
    const probeTableExists = async () =>
      (await inspector`select to_regclass('snapshot_probe') as t`)[0]?.t !== null;

    beforeAll(async () => {
      state = localClusterSnapshots([CLUSTER]);
      endpoint = await startAwsEndpoint({ functions: new Map(), stacks: new Map(), clusterSnapshots: state });
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_RDS: endpoint.url,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      });
    });
    afterAll(async () => {
      process.env = saved;
      await endpoint?.close();
    });
    beforeEach(async () => {
      database = await freshDatabase();
      inspector = postgres(database.url ?? '', { max: 1, onnotice: () => {} });
      calls = [];
      state.snapshots.clear();
      Object.assign(state, { describesUntilDone: 1, finalStatus: 'available' });
      state.onRequest = async (action) => {
        calls.push({ action, migrated: await migrated() });
      };
    });
    afterEach(async () => {
      await inspector.end();
      await database.close();
    });

    const settings = (more: object = {}) => ({ clusterId: CLUSTER, prefix: PREFIX, pollMs: 5, ...more });
    const run = (statements: string[], snapshotSettings = settings()) =>
      applyMigrations(
        { kind: 'postgres', url: database.url ?? '' },
        {
          remainingMs: () => 14 * 60_000,
          retryDelayMs: 1,
          logger: silent,
          migrationsFolder: migrationsFolder(statements, '9000_add_snapshot_probe'),
          snapshot: ({ tag }) =>
            takeClusterSnapshot(snapshotSettings, { tag, remainingMs: () => 14 * 60_000, logger: silent }),
        },
      );

    it('the deployed handler requests the snapshot first, waits for it, then migrates (env as the stack sets it)', async () => {
      Object.assign(process.env, {
        DATABASE_URL: database.url,
        MIGRATIONS_DIR: migrationsFolder(DDL, '9000_add_snapshot_probe'),
        SNAPSHOT_CLUSTER_ID: CLUSTER,
        SNAPSHOT_PREFIX: PREFIX,
      });
      try {
        const result = await handler({}, { getRemainingTimeInMillis: () => 14 * 60_000 });
        expect(result).toEqual({
          attempts: 1,
          snapshot: expect.stringMatching(/^voiceagentadmin-prod-before-9000-add-snapshot-probe-\d{14}$/),
        });
        expect(calls).toEqual([
          { action: 'CreateDBClusterSnapshot', migrated: false },
          { action: 'DescribeDBClusterSnapshots', migrated: false },
        ]);
        expect([...state.snapshots.values()]).toEqual([
          expect.objectContaining({
            id: result.snapshot,
            clusterId: CLUSTER,
            status: 'available',
            tags: { 'before-migration': '9000_add_snapshot_probe' },
          }),
        ]);
        expect(await migrated()).toBe(true);
      } finally {
        // The suite's own DATABASE_URL (the server the test databases are made on) comes back.
        for (const key of ['DATABASE_URL', 'MIGRATIONS_DIR', 'SNAPSHOT_CLUSTER_ID', 'SNAPSHOT_PREFIX']) {
          if (saved[key] === undefined) delete process.env[key];
          else process.env[key] = saved[key];
        }
      }
    });

    it('keeps waiting while the snapshot is being created, and migrates only once it is available', async () => {
      state.describesUntilDone = 4;
      const result = await run(DDL);
      expect(result.snapshot).toMatch(/^voiceagentadmin-prod-before-9000-add-snapshot-probe-/);
      expect(calls.map((c) => c.action)).toEqual([
        'CreateDBClusterSnapshot',
        ...Array(4).fill('DescribeDBClusterSnapshots'),
      ]);
      expect(calls.every((c) => !c.migrated)).toBe(true);
      expect(await migrated()).toBe(true);
    });

    it('takes none before additive migrations (new tables, their keys, indexes): not one RDS call', async () => {
      expect(await run(ADDITIVE)).toEqual({ attempts: 1 });
      expect(calls).toEqual([]);
      expect(await probeTableExists()).toBe(true);
    });

    it('takes none on a database no migration ever ran on (the first deploy), whatever the migrations do', async () => {
      await inspector.end();
      await database.close();
      database = await emptyDatabase();
      inspector = postgres(database.url ?? '', { max: 1, onnotice: () => {} });
      const result = await run([
        'create table snapshot_probe (id int)',
        'alter table snapshot_probe rename to snapshot_probe_renamed',
        'update snapshot_probe_renamed set id = 1',
      ]);
      expect(result).toEqual({ attempts: 1 });
      expect(calls).toEqual([]);
      expect((await inspector`select to_regclass('snapshot_probe_renamed') as t`)[0]?.t).not.toBeNull();
    });

    it('takes none when nothing is pending', async () => {
      await run(DDL);
      calls = [];
      expect(await run([])).toEqual({ attempts: 1 });
      expect(calls).toEqual([]);
    });

    it('fails the deploy, migrating nothing and retrying nothing, when RDS refuses the snapshot', async () => {
      await expect(run(DDL, settings({ clusterId: 'no-such-cluster' }))).rejects.toMatchObject({
        name: 'SnapshotFailed',
        message: expect.stringMatching(/^No migration ran: .*DBCluster no-such-cluster not found/),
      });
      expect(calls.map((c) => c.action)).toEqual(['CreateDBClusterSnapshot']);
      expect(await migrated()).toBe(false);
    });

    it('fails the deploy, migrating nothing, when the snapshot fails or is not available in time', async () => {
      state.finalStatus = 'failed';
      await expect(run(DDL)).rejects.toThrow(/No migration ran: .*is failed/);
      expect(await migrated()).toBe(false);

      state.describesUntilDone = 1_000;
      state.snapshots.clear(); // names are to the second: the same one again
      calls = [];
      await expect(run(DDL, settings({ waitMs: 50 }))).rejects.toThrow(
        /No migration ran: .*was still creating after/,
      );
      expect(calls[0]?.action).toBe('CreateDBClusterSnapshot');
      expect(calls.length).toBeGreaterThan(1);
      expect(await migrated()).toBe(false);
    });
  },
);

describe('the snapshot name', () => {
  it('is the prefix, the migration it precedes and the UTC time, as RDS allows', () => {
    const at = new Date('2026-11-24T10:15:07.123Z');
    expect(snapshotName('voiceagentadmin-prod', '0004_Rename__agents', at)).toBe(
      'voiceagentadmin-prod-before-0004-rename-agents-20261124101507',
    );
    const long = snapshotName('voiceagentadmin-prod', 'x'.repeat(300), at);
    expect(long.length).toBeLessThanOrEqual(255);
    expect(long).toMatch(/^[a-z](?:[a-z0-9]|-(?!-))*[a-z0-9]$/);
    expect(long.endsWith('-20261124101507')).toBe(true);
  });
});
