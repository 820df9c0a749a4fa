import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_CREDIT } from '#contract/limits.ts';
import { Balance, UsageReport } from '#contract/schemas/ledger.ts';
import { Session } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { constraintName, sqlState } from '#db/errors.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildBalance } from '#functions/ledger/balance.ts';
import { build as buildCredit } from '#functions/ledger/credit.ts';
import { build as buildUsage } from '#functions/ledger/usage.ts';
import { build as buildComplete } from '#functions/sessions/complete.ts';
import { build as buildCreate } from '#functions/sessions/create.ts';
import { build as buildStart } from '#functions/sessions/start.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant } from '#test/helpers/tenants.ts';

const SCOPES = 'sessions:write sessions:read usage:read billing:write';
let keys = 0;
const freshKey = () => `key-${++keys}-${Date.now()}`;

describe('the ledger rules: no session without credit, balance.low, never drift', () => {
  let handle: DatabaseHandle;
  let app: {
    create: ReturnType<typeof buildCreate>;
    start: ReturnType<typeof buildStart>;
    complete: ReturnType<typeof buildComplete>;
    credit: ReturnType<typeof buildCredit>;
    balance: ReturnType<typeof buildBalance>;
    usage: ReturnType<typeof buildUsage>;
  };

  beforeAll(async () => {
    // Room for the concurrent completions and credits, each on a connection of its own.
    handle = await freshDatabase({ poolMax: 12 });
    const deps = { database: handle, logger: silentLogger };
    app = {
      create: buildCreate(deps),
      start: buildStart(deps),
      complete: buildComplete(deps),
      credit: buildCredit(deps),
      balance: buildBalance(deps),
      usage: buildUsage(deps),
    };
  });
  afterAll(() => handle.close());

  /** A workspace with a published agent, and calls on it. */
  async function workspace() {
    const tenant = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, tenant, { n: 1 });
    await handle.db.execute(
      sql`update agents set published_version_id = ${agent.versionIds[0]}, status = 'PUBLISHED' where id = ${agent.agentId}`,
    );
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      apiEvent({ method: 'POST', path, body, caller: tenant, scopes: SCOPES, headers });
    const call = {
      create: () =>
        app.create(
          post(
            '/sessions',
            { agentId: agent.agentId, type: 'WEB_VOICE', person: { email: `p${++keys}@example.com` } },
            { 'idempotency-key': freshKey() },
          ),
        ),
      start: (id: string) =>
        app.start(
          apiEvent({
            method: 'POST',
            path: `/sessions/${id}/start`,
            resource: '/sessions/{sessionId}/start',
            caller: tenant,
            scopes: SCOPES,
          }),
        ),
      complete: (id: string, amount: number) =>
        app.complete(
          apiEvent({
            method: 'POST',
            path: `/sessions/${id}/complete`,
            resource: '/sessions/{sessionId}/complete',
            body: { usage: { amount } },
            caller: tenant,
            scopes: SCOPES,
          }),
        ),
      credit: (amount: number) =>
        app.credit(
          post('/ledger/credits', { amount, reason: 'PURCHASE_REFILL' }, { 'idempotency-key': freshKey() }),
        ),
      balance: async () =>
        bodyOf(Balance, await app.balance(apiEvent({ path: '/balance', caller: tenant, scopes: SCOPES }))),
    };
    return { tenant, agent, call };
  }

  const count = async (query: ReturnType<typeof sql>) =>
    Number(rowsOf<{ n: string }>(await handle.db.execute(query))[0]?.n);

  it('answers 402 naming the balance to a new or starting session once the credit is gone, and writes nothing', async () => {
    const { tenant, call } = await workspace();
    const waiting = bodyOf(Session, await call.create());
    const running = bodyOf(Session, await call.create());
    await call.start(running.id);
    // The call in progress spends all of the credit and more.
    await call.complete(running.id, -(TRIAL_CREDIT + 30));
    expect((await call.balance()).balance).toBe(-30);

    const sessionsBefore = await count(
      sql`select count(*) as n from sessions where workspace_id = ${tenant.workspaceId}`,
    );
    const refused = expectProblem(await call.create(), 402, ['balance']);
    expect(refused).toMatchObject({
      type: 'https://voice-agent-admin.dev/problems/insufficient-credit',
      title: 'Payment Required',
      detail: expect.stringContaining('balance is -30'),
    });
    expectProblem(await call.start(waiting.id), 402, ['balance']);
    expect(
      await count(sql`select count(*) as n from sessions where workspace_id = ${tenant.workspaceId}`),
    ).toBe(sessionsBefore);
    expect(
      await count(sql`select count(*) as n from sessions where id = ${waiting.id} and status = 'PENDING'`),
    ).toBe(1);

    // Credit brings it back.
    expect((await call.credit(100)).statusCode).toBe(201);
    expect((await call.start(waiting.id)).statusCode).toBe(200);
    expect((await call.create()).statusCode).toBe(201);
  });

  it('refuses a positive usage at the API (400 naming usage.amount) and any wrong-signed entry at the database', async () => {
    const { tenant, call } = await workspace();
    const session = bodyOf(Session, await call.create());
    await call.start(session.id);
    const refused = expectProblem(await call.complete(session.id, 1), 400, ['usage.amount']);
    expect(refused.errors?.[0]?.message).toBe('must not be positive: usage spends credit');
    expectProblem(await call.credit(-5), 400, ['amount']);
    expect(await count(sql`select count(*) as n from ledger_entries where session_id = ${session.id}`)).toBe(
      0,
    );
    // Zero is neither spent nor added: allowed on both sides.
    expect(bodyOf(Session, await call.complete(session.id, 0)).ledger?.amount).toBe(0);

    const book = (amount: number, reason: string) =>
      handle.db
        .execute(sql`
          insert into ledger_entries (id, workspace_id, amount, reason)
          values (${`sign${++keys}x${Date.now().toString(36)}`}, ${tenant.workspaceId}, ${amount}, ${reason}::ledger_reason)`)
        .then(
          () => 'booked',
          (error: unknown) => `${sqlState(error)} ${constraintName(error)}`,
        );
    const refusedByTheDatabase = '23514 ledger_entries_amount_sign';
    expect(await book(1, 'VOICE_USAGE')).toBe(refusedByTheDatabase);
    expect(await book(1, 'SMS_USAGE')).toBe(refusedByTheDatabase);
    expect(await book(-1, 'INITIAL_BALANCE')).toBe(refusedByTheDatabase);
    expect(await book(-1, 'PURCHASE_REFILL')).toBe(refusedByTheDatabase);
    expect(await book(-1, 'SUBSCRIPTION_REFILL')).toBe(refusedByTheDatabase);
    expect(await book(-1, 'REDEMPTION_CODE')).toBe(refusedByTheDatabase);
    expect(await book(-1, 'SMS_USAGE')).toBe('booked');
    expect(await book(1, 'PURCHASE_REFILL')).toBe('booked');
    expect((await call.balance()).balance).toBe(TRIAL_CREDIT);
  });

  it('sends balance.low once per crossing of the threshold', async () => {
    const { tenant, call } = await workspace();
    await handle.db.execute(
      sql`update ledger_balances set low_balance_threshold = 100 where workspace_id = ${tenant.workspaceId}`,
    );
    const book = (amount: number) =>
      handle.db.execute(sql`
        insert into ledger_entries (id, workspace_id, amount, reason)
        values (${`low${++keys}x${Date.now().toString(36)}`}, ${tenant.workspaceId}, ${amount},
          ${amount < 0 ? 'VOICE_USAGE' : 'PURCHASE_REFILL'}::ledger_reason)`);
    const lows = async () =>
      rowsOf<{ data: { balance: number; threshold: number } }>(
        await handle.db.execute(
          sql`select data from events where workspace_id = ${tenant.workspaceId} and type = 'balance.low' order by seq`,
        ),
      ).map((r) => r.data.balance);
    await book(-(TRIAL_CREDIT - 150)); // 150: above
    expect(await lows()).toEqual([]);
    await book(-50); // 100: crossed
    await book(-10); // 90: still under, no second event
    expect(await lows()).toEqual([100]);
    await book(500); // 590: above again
    await book(-600); // -10: crossed again
    expect(await lows()).toEqual([100, -10]);
    expect((await call.balance()).balance).toBe(-10);
  });

  it('holds balance = sum of entries and usage = sum of entries after 200 concurrent completions and credits', async () => {
    const { tenant, call } = await workspace();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const session = bodyOf(Session, await call.create());
      await call.start(session.id);
      ids.push(session.id);
    }
    const results = await Promise.all([
      ...ids.map((id, i) => call.complete(id, -(1 + (i % 7)))),
      ...ids.map((_, i) => call.credit(1 + (i % 5))),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([
      ...Array(100).fill(200),
      ...Array(100).fill(201),
    ]);

    const [sums] = rowsOf<{ sum: string; n: string }>(
      await handle.db.execute(
        sql`select sum(amount)::text as sum, count(*)::text as n from ledger_entries where workspace_id = ${tenant.workspaceId}`,
      ),
    );
    const expected =
      TRIAL_CREDIT -
      ids.reduce((s, _, i) => s + 1 + (i % 7), 0) +
      ids.reduce((s, _, i) => s + 1 + (i % 5), 0);
    expect(Number(sums?.sum)).toBe(expected);
    expect(Number(sums?.n)).toBe(201);
    expect((await call.balance()).balance).toBe(expected);

    const today = new Date().toISOString().slice(0, 10);
    const report = bodyOf(
      UsageReport,
      await app.usage(
        apiEvent({
          path: '/usage',
          query: `from=${today}&to=${today}&groupBy=reason`,
          caller: tenant,
          scopes: SCOPES,
        }),
      ),
    );
    expect(report.total).toMatchObject({ amount: expected, entries: 201, sessions: 100 });
    const [rollup] = rowsOf<{ sum: string; n: string }>(
      await handle.db.execute(
        sql`select sum(amount)::text as sum, sum(entries)::text as n from ledger_usage_quarter_hourly where workspace_id = ${tenant.workspaceId}`,
      ),
    );
    expect([Number(rollup?.sum), Number(rollup?.n)]).toEqual([expected, 201]);
    const [byReason] = rowsOf<{ sum: string; n: string }>(
      await handle.db.execute(
        sql`select sum(amount)::text as sum, sum(entries)::text as n from ledger_usage_reason_quarter_hourly where workspace_id = ${tenant.workspaceId}`,
      ),
    );
    expect([Number(byReason?.sum), Number(byReason?.n)]).toEqual([expected, 201]);
  }, 180_000);
});
