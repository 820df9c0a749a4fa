import * as v from 'valibot';
import { Id, Int32, Timestamp } from './common.ts';
import { LedgerEntry } from './session.ts';

// The ledger routes' answers (docs/api.md, "The ledger").

export const LedgerEntryList = v.array(LedgerEntry);

/** A sum of 32-bit amounts: exact in a JSON number up to 2^53. */
const Total = v.pipe(v.number(), v.safeInteger());

/** GET /balance */
export const Balance = v.strictObject({
  workspaceId: Id,
  /** The sum of every entry of the workspace, to the unit. */
  balance: Total,
  /** The last entry booked into it; null while there is none. */
  lastEntryId: v.nullable(Id),
  lastEntryAt: v.nullable(Timestamp),
  lowBalanceThreshold: Int32,
});
export type Balance = v.InferOutput<typeof Balance>;

const UsageTotals = {
  amount: Total,
  entries: Total,
  sessions: Total,
  voiceSeconds: Total,
};

/** One group of a usage report: a day (`YYYY-MM-DD`), an agent (null: entries of no agent) or a reason. */
export const UsageGroup = v.strictObject({ key: v.nullable(v.string()), ...UsageTotals });

/** GET /usage */
export const UsageReport = v.strictObject({
  from: v.string(),
  to: v.string(),
  timezone: v.string(),
  groupBy: v.picklist(['day', 'agent', 'reason']),
  groups: v.array(UsageGroup),
  total: v.strictObject(UsageTotals),
});
export type UsageReport = v.InferOutput<typeof UsageReport>;
