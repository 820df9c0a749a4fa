import { bigint, date, integer, pgTable, primaryKey, timestamp, unique } from 'drizzle-orm/pg-core';
import { LOW_BALANCE_THRESHOLD_DEFAULT } from '#contract/limits.ts';
import { id, timestamptz } from './columns.ts';
import { ledgerReason } from './enums.ts';
import { workspaces } from './workspaces.ts';

/**
 * A workspace's balance: the sum of its ledger entries, kept by the trigger on `ledger_entries`
 * (migration `ledger_functions`) in the transaction that books them, so it cannot drift from them.
 * GET /balance reads this row by primary key.
 */
export const ledgerBalances = pgTable('ledger_balances', {
  workspaceId: id('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  balance: bigint('balance', { mode: 'number' }).notNull().default(0),
  /** The last entry the balance includes (the last one booked); null before the first. */
  lastEntryId: id('last_entry_id'),
  lastEntryAt: timestamptz('last_entry_at'),
  /** `balance.low` fires when a booking takes the balance from above this to at or below it. */
  lowBalanceThreshold: integer('low_balance_threshold').notNull().default(LOW_BALANCE_THRESHOLD_DEFAULT),
});

/** What every usage rollup adds up for its key: the entries' amount, how many, their sessions and voice. */
const usageTotals = () => ({
  amount: bigint('amount', { mode: 'number' }).notNull(),
  entries: bigint('entries', { mode: 'number' }).notNull(),
  sessions: bigint('sessions', { mode: 'number' }).notNull(),
  voiceSeconds: bigint('voice_seconds', { mode: 'number' }).notNull(),
});

/**
 * Usage per workspace, UTC quarter-hour, agent and reason, kept by the same trigger: GET /usage adds
 * these up instead of the entries. Quarter-hours, because every zone's offset today is a whole
 * number of them (Kathmandu's +05:45 and Chatham's +12:45 too): a local day is whole buckets in any
 * zone, and only buckets a local midnight cuts (historical offsets in seconds) are read from entries.
 */
export const ledgerUsageQuarterHourly = pgTable(
  'ledger_usage_quarter_hourly',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The UTC quarter-hour's start (:00, :15, :30 or :45). */
    bucket: timestamp('bucket', { withTimezone: true, mode: 'string' }).notNull(),
    agentId: id('agent_id'),
    reason: ledgerReason('reason').notNull(),
    ...usageTotals(),
  },
  (t) => [
    // The trigger's upsert key, and GET /usage's range: a workspace's buckets in order.
    unique('ledger_usage_quarter_hourly_key')
      .on(t.workspaceId, t.bucket, t.agentId, t.reason)
      .nullsNotDistinct(),
  ],
);

/**
 * The same usage without the agent (workspace, UTC quarter-hour, reason): what a report by day or
 * by reason adds up, a few rows a bucket however many agents the workspace has.
 */
export const ledgerUsageReasonQuarterHourly = pgTable(
  'ledger_usage_reason_quarter_hourly',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    bucket: timestamp('bucket', { withTimezone: true, mode: 'string' }).notNull(),
    reason: ledgerReason('reason').notNull(),
    ...usageTotals(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.bucket, t.reason] })],
);

/**
 * Usage per workspace, UTC day, agent and reason, kept by the same trigger: a report by agent adds
 * these up for the window's whole UTC days (a few rows a day per agent), and the quarter-hours only
 * for the parts of days at its ends.
 */
export const ledgerUsageAgentDaily = pgTable(
  'ledger_usage_agent_daily',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The UTC day. */
    day: date('day', { mode: 'string' }).notNull(),
    agentId: id('agent_id'),
    reason: ledgerReason('reason').notNull(),
    ...usageTotals(),
  },
  (t) => [
    // The trigger's upsert key, and the report's range: a workspace's days in order.
    unique('ledger_usage_agent_daily_key').on(t.workspaceId, t.day, t.agentId, t.reason).nullsNotDistinct(),
  ],
);
