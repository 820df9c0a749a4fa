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
  limitOffset,
  type Page,
  pastCursor,
  runPage,
} from './list-window.ts';
import { isoTime, ledgerEntryJson } from './projections.ts';

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

/** One page of the caller's workspace's entries as JSON text (one statement), each read by primary key. */
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
  select id, created_at from ledger_entries
  where ${allOf([...conditions, ...pastCursor(window)])}
  order by created_at ${dir}, id ${dir}
  ${limitOffset(window)}
)
select t.total, (
  select ${ledgerEntryJson()}
  from ledger_entries l where l.id = page.id
)::text as item
from (select ${total} as total) t
left join page on true
where ${keyIsLive(caller.keyId)}
order by page.created_at ${dir}, page.id ${dir}`,
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

/** The balance row, by primary key; a workspace that never booked an entry has none: zero. */
export async function readBalance(runner: SqlRunner, caller: CallingKey): Promise<Balance> {
  const [row] = await runner.rows<{
    balance: string;
    lastEntryId: string | null;
    lastEntryAt: string | null;
    lowBalanceThreshold: number;
  }>(sql`
    select balance::text as balance, last_entry_id as "lastEntryId",
      ${isoTime(sql`last_entry_at`)} as "lastEntryAt",
      low_balance_threshold as "lowBalanceThreshold"
    from ledger_balances
    where workspace_id = ${caller.workspaceId} and ${keyIsLive(caller.keyId)}`);
  return {
    workspaceId: caller.workspaceId,
    balance: Number(row?.balance ?? 0),
    lastEntryId: row?.lastEntryId ?? null,
    lastEntryAt: row?.lastEntryAt ?? null,
    lowBalanceThreshold: row?.lowBalanceThreshold ?? 0,
  };
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

/** The local calendar day of an instant in a time zone, `YYYY-MM-DD` (a formatter per zone: making one is slow). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
function localDay(ms: number, zone: string): string {
  let format = dayFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormats.set(zone, format);
  }
  return format.format(ms);
}

/** Where the local midnight that starts `day` falls, as an instant (the zone's offset then). */
function localMidnight(day: string, zone: string): number {
  const wall = Date.parse(`${day}T00:00:00.000Z`);
  const offsetAt = (ms: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(ms);
    const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - ms;
  };
  return wall - offsetAt(wall - offsetAt(wall));
}

const HOUR_MS = 3_600_000;

/**
 * The window of whole local days as UTC instants, from the first UTC hour it touches (`lo`) to past
 * the last (`hi`), and the hours the rollup cannot stand for: cut by the window's edges or by a
 * local midnight (none in a zone with a whole-hour offset), each with the part inside the window.
 */
export function usageWindow(from: string, to: string, zone: string) {
  const start = localMidnight(from, zone);
  const end = localMidnight(
    new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10),
    zone,
  );
  const lo = Math.floor(start / HOUR_MS) * HOUR_MS;
  const hi = Math.ceil(end / HOUR_MS) * HOUR_MS;
  const split: { hour: string; start: string; end: string }[] = [];
  for (let h = lo; h < hi; h += HOUR_MS) {
    const cut = h < start || h + HOUR_MS > end || localDay(h, zone) !== localDay(h + HOUR_MS - 1, zone);
    if (!cut) continue;
    const iso = (ms: number) => new Date(ms).toISOString();
    split.push({ hour: iso(h), start: iso(Math.max(h, start)), end: iso(Math.min(h + HOUR_MS, end)) });
  }
  return { lo: new Date(lo).toISOString(), hi: new Date(hi).toISOString(), split };
}

/** Each grouping's key, an expression over `counted`. */
const GROUP_KEYS = {
  day: sql`to_char(day, 'YYYY-MM-DD')`,
  agent: sql`agent_id`,
  reason: sql`reason::text`,
} as const;

/**
 * Usage totals per group over whole local days `from`..`to` in `timezone`, in one statement. An
 * hourly rollup stands for every UTC hour that lies inside the window and inside one local day
 * (all of them, in a zone with a whole-hour offset); the entries themselves are read for the other
 * hours (a zone offset by 30 or 45 minutes splits one hour a day). Every entry of the window is
 * counted once, so the groups add up to the entries to the unit.
 */
export async function usageReport(
  runner: SqlRunner,
  caller: CallingKey,
  q: { from: string; to: string; timezone: string; groupBy: UsageReport['groupBy'] },
): Promise<UsageReport> {
  const ws = caller.workspaceId;
  const tz = q.timezone;
  // By agent needs the rollup with the agent; by day or reason the one without (far fewer rows).
  const rolled =
    q.groupBy === 'agent'
      ? sql`select hours.day, u.agent_id, u.reason, u.amount, u.entries, u.sessions, u.voice_seconds
      from hours join ledger_usage_hourly u on u.workspace_id = ${ws} and u.hour = hours.h`
      : sql`select hours.day, null::varchar, u.reason, u.amount, u.entries, u.sessions, u.voice_seconds
      from hours join ledger_usage_reason_hourly u on u.workspace_id = ${ws} and u.hour = hours.h`;
  const w = usageWindow(q.from, q.to, tz);
  // Each split hour's part of the window as constants: the planner estimates each range from its statistics.
  const splitRanges = w.split.length
    ? join(
        w.split.map(
          (r) => sql`(e.created_at >= ${r.start}::timestamptz and e.created_at < ${r.end}::timestamptz)`,
        ),
        ' or ',
      )
    : sql`false`;
  const rows = await runner.rows<{
    key: string | null;
    amount: string;
    entries: string;
    sessions: string;
    voiceSeconds: string;
  }>(sql`
    with hours as (
      select h, (h at time zone ${tz})::date as day
      from generate_series(${w.lo}::timestamptz, ${w.hi}::timestamptz - interval '1 hour', interval '1 hour') h
      where not (h = any(${`{${w.split.map((r) => r.hour).join(',')}}`}::timestamptz[]))
    ), counted as (
      ${rolled}
      union all
      select (e.created_at at time zone ${tz})::date, e.agent_id, e.reason, e.amount, 1,
        (e.session_id is not null)::int, ledger_voice_seconds(s.started_at, s.ended_at)
      from ledger_entries e
      left join sessions s on e.reason = 'VOICE_USAGE' and s.id = e.session_id
      where e.workspace_id = ${ws} and (${splitRanges})
    )
    select ${GROUP_KEYS[q.groupBy]} as key, sum(amount)::text as amount, sum(entries)::text as entries,
      sum(sessions)::text as sessions, coalesce(sum(voice_seconds), 0)::text as "voiceSeconds"
    from counted
    where ${keyIsLive(caller.keyId)}
    group by 1 order by 1 nulls last`);
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
