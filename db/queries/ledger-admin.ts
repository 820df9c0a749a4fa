import { createId } from '@paralleldrive/cuid2';
import { sql } from 'drizzle-orm';
import type { refillReasons } from '#contract/enums.ts';
import type { Database } from '../client.ts';
import { rowsOf } from './rows.ts';

// The operator's ledger commands (the admin function, `npm run ledger`): Drizzle's runner, not a handler's.

/**
 * Books a credit once per idempotency key in the workspace (the ledger's unique key); undefined for
 * no such workspace. Answers the entry (booked now or before) and the balance after it.
 */
export async function creditWorkspace(
  db: Database,
  input: {
    workspaceId: string;
    amount: number;
    reason: (typeof refillReasons)[number];
    reasonDetails: string | null;
    idempotencyKey: string;
  },
): Promise<{ entryId: string; booked: boolean; balance: number } | undefined> {
  const { workspaceId: ws, idempotencyKey: key } = input;
  return db.transaction(async (tx) => {
    const booked = rowsOf<{ id: string }>(
      await tx.execute(sql`
        insert into ledger_entries (id, workspace_id, amount, reason, reason_details, idempotency_key)
        select ${createId()}, w.id, ${input.amount}, ${input.reason}::ledger_reason, ${input.reasonDetails}, ${key}
        from workspaces w where w.id = ${ws}
        on conflict (workspace_id, idempotency_key) where idempotency_key is not null do nothing
        returning id`),
    );
    const [row] = rowsOf<{ id: string; balance: string }>(
      await tx.execute(sql`
        select l.id, b.balance::text as balance
        from ledger_entries l join ledger_balances b on b.workspace_id = l.workspace_id
        where l.workspace_id = ${ws} and l.idempotency_key = ${key}`),
    );
    return row && { entryId: row.id, booked: booked.length > 0, balance: Number(row.balance) };
  });
}

/** Sets the workspace's low-balance threshold; undefined for no such workspace. */
export async function setLowBalanceThreshold(
  db: Database,
  workspaceId: string,
  threshold: number,
): Promise<{ balance: number } | undefined> {
  const [row] = rowsOf<{ balance: string }>(
    await db.execute(sql`
      insert into ledger_balances (workspace_id, low_balance_threshold)
      select id, ${threshold} from workspaces where id = ${workspaceId}
      on conflict (workspace_id) do update set low_balance_threshold = excluded.low_balance_threshold
      returning balance::text as balance`),
  );
  return row && { balance: Number(row.balance) };
}
