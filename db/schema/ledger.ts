import { bigint, integer, pgTable, primaryKey, timestamp, unique } from 'drizzle-orm/pg-core';
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

/**
 * Usage per workspace, UTC hour, agent and reason, kept by the same trigger: GET /usage adds these
 * up instead of the entries (hours split by the window's edges or a local midnight are read from
 * the entries). Hours, not days, so a report in any time zone with a whole-hour offset needs no entry.
 */
export const ledgerUsageHourly = pgTable(
  'ledger_usage_hourly',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The UTC hour's start. */
    hour: timestamp('hour', { withTimezone: true, mode: 'string' }).notNull(),
    agentId: id('agent_id'),
    reason: ledgerReason('reason').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    entries: bigint('entries', { mode: 'number' }).notNull(),
    sessions: bigint('sessions', { mode: 'number' }).notNull(),
    voiceSeconds: bigint('voice_seconds', { mode: 'number' }).notNull(),
  },
  (t) => [
    // The trigger's upsert key, and GET /usage's range: a workspace's hours in order.
    unique('ledger_usage_hourly_key').on(t.workspaceId, t.hour, t.agentId, t.reason).nullsNotDistinct(),
  ],
);

/**
 * The same usage without the agent (workspace, UTC hour, reason): what a report by day or by reason
 * adds up, a few rows an hour however many agents the workspace has.
 */
export const ledgerUsageReasonHourly = pgTable(
  'ledger_usage_reason_hourly',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true, mode: 'string' }).notNull(),
    reason: ledgerReason('reason').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    entries: bigint('entries', { mode: 'number' }).notNull(),
    sessions: bigint('sessions', { mode: 'number' }).notNull(),
    voiceSeconds: bigint('voice_seconds', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.hour, t.reason] })],
);
