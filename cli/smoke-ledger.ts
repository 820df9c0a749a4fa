import { randomBytes } from 'node:crypto';
import { Balance, LedgerEntryList, UsageReport } from '#contract/schemas/ledger.ts';
import { ledgerCsvColumns } from '#contract/schemas/ledger-requests.ts';
import { LedgerEntry } from '#contract/schemas/session.ts';
import { type Answer, type Check, expectStatus, fail, problemOf, Skip, shaped } from './smoke-answers.ts';

// `npm run smoke`'s checks of the ledger routes (docs/api.md, "The ledger").

export type SmokeRequest = (
  path: string,
  init?: { method?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Answer>;

/** A key without the ledger's scope cannot check what needs it: a skip, not a failure. */
function needing(scope: 'usage:read' | 'billing:write', answer: Answer): Answer {
  if (answer.status === 403 && answer.text.includes(scope)) throw new Skip(`the key lacks ${scope}`);
  return answer;
}

async function balanceOf(request: SmokeRequest) {
  const answer = needing('usage:read', await request('balance'));
  expectStatus(answer, 200);
  return shaped(Balance, answer, 'the balance');
}

const unknownId = () => `z${randomBytes(12).toString('hex').slice(0, 23)}`;

export function ledgerWrites(request: SmokeRequest): Check[] {
  return [
    {
      name: 'POST /ledger/credits books a credit once per Idempotency-Key; GET /balance moves by it once',
      run: async () => {
        const before = await balanceOf(request);
        const key = `smoke-${randomBytes(8).toString('hex')}`;
        const init = {
          method: 'POST',
          body: { amount: 1, reason: 'PURCHASE_REFILL', reasonDetails: 'npm run smoke' },
          headers: { 'idempotency-key': key },
        };
        const first = needing('billing:write', await request('ledger/credits', init));
        expectStatus(first, 201);
        const entry = shaped(LedgerEntry, first, 'the entry');
        if (entry.amount !== 1 || entry.idempotencyKey !== key) fail('the entry is not the credit sent');
        const again = await request('ledger/credits', init);
        expectStatus(again, 201);
        if (again.text !== first.text) fail('the replay answered another entry');
        const after = await balanceOf(request);
        if (after.balance !== before.balance + 1)
          fail(`the balance went from ${before.balance} to ${after.balance}, not up by 1`);
        return `201, entry ${entry.id}, replayed; balance ${before.balance} → ${after.balance}`;
      },
    },
  ];
}

/** `sessionId`: the session the write checks completed with a usage of -1, if they ran. */
export function ledgerReads(request: SmokeRequest, sessionId: () => string | undefined): Check[] {
  return [
    {
      name: 'GET /balance answers the balance; its last entry reads back (GET /ledger/{entryId}); an unknown id is a 404 problem',
      run: async () => {
        const balance = await balanceOf(request);
        const problem = problemOf(await request(`ledger/${unknownId()}`), 404);
        if (!balance.lastEntryId) return `200, balance ${balance.balance}, no entry yet; 404 ${problem.type}`;
        const one = await request(`ledger/${balance.lastEntryId}`);
        expectStatus(one, 200);
        if (shaped(LedgerEntry, one, 'the entry').id !== balance.lastEntryId) fail('another entry answered');
        return `200, balance ${balance.balance}, last entry ${balance.lastEntryId} reads back; 404 ${problem.type}`;
      },
    },
    {
      name: 'GET /ledger lists the entries newest first, the same rows as CSV (Accept: text/csv)',
      run: async () => {
        const answer = needing('usage:read', await request('ledger?limit=25'));
        expectStatus(answer, 200);
        const entries = shaped(LedgerEntryList, answer, 'the ledger');
        const times = entries.map((e) => e.createdAt);
        if (times.some((t, i) => i > 0 && t > (times[i - 1] as string))) fail('not newest first');
        const csv = await request('ledger?limit=25', { headers: { accept: 'text/csv' } });
        expectStatus(csv, 200, 'text/csv');
        const [header, ...rows] = csv.text.split('\r\n');
        if (header !== ledgerCsvColumns.join(',')) fail(`the CSV header is "${header}"`);
        if (rows.pop() !== '') fail('the CSV does not end with CRLF');
        // The id comes first and never needs quoting.
        if (rows.map((r) => r.split(',')[0]).join() !== entries.map((e) => e.id).join())
          fail('the CSV rows are not the JSON entries');
        const session = sessionId();
        if (!session) return `200, ${entries.length} entries, the same as CSV`;
        const usage = shaped(LedgerEntryList, await request(`ledger?sessionId=${session}`), 'the ledger');
        if (usage.length !== 1 || usage[0]?.amount !== -1 || usage[0].reason !== 'VOICE_USAGE')
          fail(`session ${session} has ${usage.length} entries, not its usage of -1`);
        return `200, ${entries.length} entries, the same as CSV; session ${session}'s usage once`;
      },
    },
    {
      name: 'GET /usage for the last 30 days by day and by reason: the groups add up to the same total',
      run: async () => {
        const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const window = `from=${day(Date.now() - 29 * 86_400_000)}&to=${day(Date.now())}`;
        const report = async (groupBy: string) => {
          const answer = needing('usage:read', await request(`usage?${window}&groupBy=${groupBy}`));
          expectStatus(answer, 200);
          return shaped(UsageReport, answer, 'the report');
        };
        const [byDay, byReason] = [await report('day'), await report('reason')];
        for (const r of [byDay, byReason]) {
          const sum = r.groups.reduce((s, g) => s + g.amount, 0);
          if (sum !== r.total.amount)
            fail(`by ${r.groupBy}: the groups add up to ${sum}, not ${r.total.amount}`);
        }
        if (JSON.stringify(byDay.total) !== JSON.stringify(byReason.total))
          fail('the totals by day and by reason differ');
        const bad = problemOf(await request(`usage?${window}&groupBy=week`), 400);
        if (!bad.errors?.some((e) => e.path === 'groupBy')) fail('the 400 does not name "groupBy"');
        return `200, ${byDay.groups.length} day(s), total ${byDay.total.amount}; 400 naming groupBy`;
      },
    },
  ];
}
