import sql, { join, type Sql } from 'sql-template-tag';
import type { ledgerReason, refillReasons } from '#contract/enums.ts';
import type { Balance, UsageReport } from '#contract/schemas/ledger.ts';
import type { LedgerEntry } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { idMaker } from './ids.ts';
import type { JsonText } from './json-text.ts';
import {
  allOf,
  direction,
  isIn,
  type ListWindow,
  type Page,
  pageBounds,
  pastCursor,
  readsOffIndex,
  runPage,
} from './list-window.ts';
import { dayStart, nextDay } from './local-days.ts';
import { balanceJson, ledgerEntryJson } from './projections.ts';

export interface LedgerFilters {
  reason?: (typeof ledgerReason)[number][];
  agentId?: string[];
  sessionId?: string[];
  createdAfter?: string;
  createdBefore?: string;
}

/** The workspace and the filters, on the bare `ledger_entries` table (the list index serves the window). */
function matching(workspaceId: string, f: LedgerFilters): Sql[] {
  return [
    sql`ledger_entries.workspace_id = ${workspaceId}`,
    f.reason && isIn(sql`ledger_entries.reason`, f.reason),
    f.agentId && isIn(sql`ledger_entries.agent_id`, f.agentId),
    f.sessionId && isIn(sql`ledger_entries.session_id`, f.sessionId),
    f.createdAfter ? sql`ledger_entries.created_at > ${f.createdAfter}` : undefined,
    f.createdBefore ? sql`ledger_entries.created_at < ${f.createdBefore}` : undefined,
  ].filter((c): c is Sql => c !== undefined);
}

/** The page's entries (`readsOffIndex`), as sessions.ts reads its page. */
function pageRows(where: Sql, window: ListWindow): Sql {
  if (readsOffIndex(window)) return sql`select * from ledger_entries where ${where} ${pageBounds(window)}`;
  return sql`select l.*
  from (select id, created_at from ledger_entries where ${where} ${pageBounds(window)}) page
  cross join lateral (select * from ledger_entries where ledger_entries.id = page.id offset 0) l`;
}

/** One page of the caller's workspace's entries as JSON text (one statement). */
export function pageLedgerJson(
  runner: SqlRunner,
  caller: CallingKey,
  filters: LedgerFilters,
  window: ListWindow,
  includeTotal = false,
): Promise<Page<LedgerEntry>> {
  const conditions = matching(caller.workspaceId, filters);
  const dir = direction(window);
  const total = includeTotal
    ? sql`(select count(*)::int from ledger_entries where ${allOf(conditions)})`
    : sql`null::int`;
  return runPage<LedgerEntry>(
    runner,
    sql`
with page as (
  ${pageRows(allOf([...conditions, ...pastCursor(window)]), window)}
)
select t.total, case when l.id is null then null else ${ledgerEntryJson()} end::text as item
from (select ${total} as total) t
left join page l on true
where ${keyIsLive(caller.keyId)}
order by l.created_at ${dir}, l.id ${dir}`,
    includeTotal,
  );
}

/** One entry of the caller's workspace; undefined for another workspace's as for an unknown one. */
export async function getLedgerEntryJson(
  runner: SqlRunner,
  caller: CallingKey,
  entryId: string,
): Promise<JsonText<LedgerEntry> | undefined> {
  const [row] = await runner.rows<{ item: JsonText<LedgerEntry> }>(sql`
    select ${ledgerEntryJson()}::text as item
    from ledger_entries l
    where l.id = ${entryId} and l.workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return row?.item;
}

/** The balance as JSON text, from its row read by primary key (one statement, built by Postgres). */
export async function readBalanceJson(runner: SqlRunner, caller: CallingKey): Promise<JsonText<Balance>> {
  const [row] = await runner.rows<{ item: JsonText<Balance> }>(sql`
    select ${balanceJson()}::text as item
    from (select ${caller.workspaceId}::varchar as id) w
    left join ledger_balances b on b.workspace_id = w.id
    where ${keyIsLive(caller.keyId)}`);
  if (!row) throw new Error('the balance statement answered no row');
  return row.item;
}

/**
 * The balance a new or starting session is admitted on, read with its row locked `for share`: a
 * booking in flight (which holds the row for update until it commits) is waited for, so no session
 * is admitted on a balance already spent. Called last in the session's transaction, after its own
 * row locks, in the order the completions take them (session, then balance): no deadlock.
 */
export async function balanceForAdmission(tx: SqlRunner, workspaceId: string): Promise<number> {
  const [row] = await tx.rows<{ balance: string }>(sql`
    select balance::text as balance from ledger_balances where workspace_id = ${workspaceId} for share`);
  return Number(row?.balance ?? 0);
}

export interface NewCredit {
  amount: number;
  reason: (typeof refillReasons)[number];
  reasonDetails: string | null;
  redemptionCodeId: string | null;
  idempotencyKey: string;
  principalId: string;
  /** Seeds only: when it was booked (clock.ts); the API's: now. */
  at?: string;
}

/**
 * Books a credit once per Idempotency-Key in the workspace (the unique index on the key; the key
 * table's 24 hours are the first guard, this one lasts), and answers the entry: the one booked now,
 * or the one an earlier request with this key booked.
 */
export async function bookCredit(
  tx: SqlRunner,
  caller: CallingKey,
  credit: NewCredit,
): Promise<{ item: JsonText<LedgerEntry>; booked: boolean }> {
  const createId = await idMaker();
  const now = clock(credit.at);
  const ws = caller.workspaceId;
  const [inserted] = await tx.rows<{ id: string }>(sql`
    insert into ledger_entries (id, created_at, updated_at, created_by, updated_by, workspace_id, amount, reason,
      reason_details, redemption_code_id, idempotency_key)
    select ${createId()}, ${now}, ${now}, ${credit.principalId}, ${credit.principalId}, ${ws}, ${credit.amount},
      ${credit.reason}::ledger_reason, ${credit.reasonDetails}, ${credit.redemptionCodeId}, ${credit.idempotencyKey}
    where ${keyIsLive(caller.keyId)}
    on conflict (workspace_id, idempotency_key) where idempotency_key is not null do nothing
    returning id`);
  // In the transaction whose insert held the calling key to being live: no second guard.
  const [row] = await tx.rows<{ item: JsonText<LedgerEntry> }>(sql`
    select ${ledgerEntryJson()}::text as item
    from ledger_entries l
    where l.workspace_id = ${ws} and l.idempotency_key = ${credit.idempotencyKey}`);
  if (!row) throw new Error('the credit was neither booked nor found');
  return { item: row.item, booked: inserted !== undefined };
}

/**
 * Each grouping's column of `counted`, and its key as answered: grouped by the column, so the key
 * is formatted once a group rather than once a row.
 */
const GROUPS = {
  day: { column: sql`day`, key: sql`to_char(day, 'YYYY-MM-DD')` },
  agent: { column: sql`agent_id`, key: sql`agent_id` },
  reason: { column: sql`reason`, key: sql`reason::text` },
} as const;

const QUARTER_HOUR_MS = 900_000;
const DAY_MS = 86_400_000;

/**
 * Usage totals per group over whole local days `from`..`to` in `timezone`, in one statement. The
 * days' first instants come from the runtime's zone data (Intl, as the zone was validated), and
 * the statement places each row on its day among them: Postgres never reads the zone's name, so a
 * name both know differently (`MET`: Central European time to Intl, a fixed +01:00 abbreviation to
 * Postgres) cannot move a day. A quarter-hour rollup row stands for its bucket when no local
 * midnight falls inside it: every bucket in a zone whose offsets are whole quarter-hours, as every
 * zone's are today (DST shifts included). A midnight inside a bucket (the local mean times of old
 * dates, offsets in seconds) has that bucket's entries read instead, each counted on its own local
 * day. Every entry of the window is counted once, so the groups add up to the entries to the unit.
 */
export async function usageReport(
  runner: SqlRunner,
  caller: CallingKey,
  q: { from: string; to: string; timezone: string; groupBy: UsageReport['groupBy'] },
): Promise<UsageReport> {
  const ws = caller.workspaceId;
  const tz = q.timezone;
  const starts: number[] = [];
  for (let day = q.from; day <= q.to; day = nextDay(day)) starts.push(dayStart(day, tz));
  const end = dayStart(nextDay(q.to), tz);
  const bucketOf = (ms: number) => Math.floor(ms / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
  const iso = (ms: number) => new Date(ms).toISOString();
  const lo = iso(bucketOf(starts[0] ?? end));
  const hi = iso(Math.ceil(end / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
  const split = [...starts, end].filter((ms) => ms % QUARTER_HOUR_MS !== 0).map((ms) => iso(bucketOf(ms)));
  // The local day of an instant of the window: `from` plus the number of day starts before it
  // (grouped by agent or reason, no day is read).
  const dayStarts = sql`${`{${starts.map(iso).join(',')}}`}::timestamptz[]`;
  const dayOf = (at: Sql) =>
    q.groupBy === 'day' ? sql`${q.from}::date + (width_bucket(${at}, ${dayStarts}) - 1)` : sql`null::date`;
  // Each cut bucket as constants: the planner estimates each range from its statistics, and with
  // none (any zone of today) the branch is planned away.
  const cutRanges = split.length
    ? join(
        split.map(
          (b) =>
            sql`(e.created_at >= ${b}::timestamptz and e.created_at < ${b}::timestamptz + interval '15 minutes')`,
        ),
        ' or ',
      )
    : sql`false`;
  // By agent needs the rollups with the agent; by day or reason the one without (far fewer rows).
  const byAgent = q.groupBy === 'agent';
  const rollup = byAgent ? sql`ledger_usage_quarter_hourly` : sql`ledger_usage_reason_quarter_hourly`;
  const agent = byAgent ? sql`agent_id` : sql`null::varchar`;
  // By agent, the window's whole UTC days come from the daily rollup and only its ends from the
  // quarter-hours and entries; otherwise that range is empty (a local day need not be a UTC one).
  const wholeFrom = Math.ceil((starts[0] ?? end) / DAY_MS) * DAY_MS;
  const wholeTo = byAgent ? Math.max(wholeFrom, Math.floor(end / DAY_MS) * DAY_MS) : wholeFrom;
  const [daysFrom, daysTo] = [iso(wholeFrom), iso(wholeTo)];
  // The quarter-hours around those days, as index ranges (a filter would read the days' rows too).
  const bucketRanges =
    wholeFrom < wholeTo
      ? sql`(bucket >= ${lo}::timestamptz and bucket < ${daysFrom}::timestamptz
          or bucket >= ${daysTo}::timestamptz and bucket < ${hi}::timestamptz)`
      : sql`bucket >= ${lo}::timestamptz and bucket < ${hi}::timestamptz`;
  const rows = await runner.rows<{
    key: string | null;
    amount: string;
    entries: string;
    sessions: string;
    voiceSeconds: string;
  }>(sql`
    with counted as (
      select ${dayOf(sql`bucket`)} as day, ${agent} as agent_id, reason, amount, entries, sessions,
        voice_seconds
      from ${rollup}
      where workspace_id = ${ws} and ${bucketRanges}
        and not (bucket = any(${`{${split.join(',')}}`}::timestamptz[]))
      union all
      select null, ${agent}, reason, amount, entries, sessions, voice_seconds
      from ledger_usage_agent_daily
      where workspace_id = ${ws} and day >= ${daysFrom.slice(0, 10)}::date and day < ${daysTo.slice(0, 10)}::date
      union all
      select ${dayOf(sql`e.created_at`)}, e.agent_id, e.reason, e.amount, 1,
        (e.session_id is not null)::int, ledger_voice_seconds(s.started_at, s.ended_at)
      from ledger_entries e
      left join sessions s on e.reason = 'VOICE_USAGE' and s.id = e.session_id
      where e.workspace_id = ${ws} and (${cutRanges})
        and not (e.created_at >= ${daysFrom}::timestamptz and e.created_at < ${daysTo}::timestamptz)
        and e.created_at >= ${iso(starts[0] ?? end)}::timestamptz and e.created_at < ${iso(end)}::timestamptz
    )
    select ${GROUPS[q.groupBy].key} as key, sum(amount)::text as amount, sum(entries)::text as entries,
      sum(sessions)::text as sessions, coalesce(sum(voice_seconds), 0)::text as "voiceSeconds"
    from counted
    where ${keyIsLive(caller.keyId)}
    group by ${GROUPS[q.groupBy].column} order by 1 nulls last`);
  const groups = rows.map((r) => ({
    key: r.key,
    amount: Number(r.amount),
    entries: Number(r.entries),
    sessions: Number(r.sessions),
    voiceSeconds: Number(r.voiceSeconds),
  }));
  const total = { amount: 0, entries: 0, sessions: 0, voiceSeconds: 0 };
  for (const g of groups) {
    total.amount += g.amount;
    total.entries += g.entries;
    total.sessions += g.sessions;
    total.voiceSeconds += g.voiceSeconds;
  }
  return { from: q.from, to: q.to, timezone: tz, groupBy: q.groupBy, groups, total };
}
