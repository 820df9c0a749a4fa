import type { SqlRunner } from '#db/database.ts';
import { balanceForAdmission } from '#db/queries/ledger.ts';
import { HttpProblem, problemType } from '../http/problem.ts';

/**
 * The credit rule of POST /sessions and POST /sessions/{id}/start: a workspace whose balance is zero
 * or less gets 402, naming its balance. Call it last in the session's transaction (it waits for a
 * booking in flight; docs/decisions.md, "The ledger").
 */
export async function requireCredit(tx: SqlRunner, workspaceId: string): Promise<void> {
  const balance = await balanceForAdmission(tx, workspaceId);
  if (balance > 0) return;
  throw new HttpProblem(
    402,
    problemType('insufficient-credit'),
    `The workspace's balance is ${balance}: no credit left for a session. Add credit (POST /ledger/credits).`,
    [{ path: 'balance', message: `is ${balance}` }],
  );
}
