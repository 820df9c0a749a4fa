import { ledgerCsvColumns } from '#contract/schemas/ledger-requests.ts';
import type { ApiResult } from '../http/types.ts';

/** The client asked for CSV: `text/csv` among the media types it accepts (no weighing beyond that). */
export const wantsCsv = (accept: string | undefined) =>
  accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);

/** One field, quoted when RFC 4180 requires it (a comma, a quote, a line break), quotes doubled. */
function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A list answer's page as RFC 4180 CSV: a header line, then one line per entry, CRLF-ended; the
 * paging headers (`Link`, `X-Total-Count`) are the JSON answer's.
 */
export function asCsv(answer: ApiResult, limit: number): ApiResult {
  if (answer.statusCode !== 200) return answer;
  const items = (JSON.parse(answer.body) as Record<string, unknown>[]).slice(0, limit);
  const lines = [ledgerCsvColumns.join(',')];
  for (const item of items) lines.push(ledgerCsvColumns.map((c) => field(item[c])).join(','));
  return {
    ...answer,
    headers: { ...answer.headers, 'content-type': 'text/csv; charset=utf-8; header=present' },
    body: `${lines.join('\r\n')}\r\n`,
  };
}
