import { ledgerCsvColumns } from '#contract/schemas/ledger-requests.ts';
import type { ApiResult } from '../http/types.ts';

/**
 * The weight (`q`) the Accept header gives a media type named exactly, 1 when it names none;
 * undefined when no range names it. Wildcards are not weighed: JSON is the default either way.
 * (Two media types and one rule: a negotiation library would be more code in every bundle.)
 */
function weightOf(accept: string, type: string): number | undefined {
  for (const range of accept.split(',')) {
    const [name, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (name !== type) continue;
    const q = params.find((p) => /^q\s*=/.test(p));
    return q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
  }
  return undefined;
}

/**
 * The client asked for CSV: `text/csv` acceptable (`q` above 0, RFC 9110) and weighed no lower
 * than `application/json` where that is named too.
 */
export function wantsCsv(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const csv = weightOf(accept, 'text/csv');
  if (csv === undefined || !(csv > 0)) return false;
  return !(csv < (weightOf(accept, 'application/json') ?? 0));
}

/** The columns a client writes freely; the others are ids, times, enums and numbers. */
const FREE_TEXT = new Set<string>([
  'reasonDetails',
  'idempotencyKey',
] satisfies (typeof ledgerCsvColumns)[number][]);

/**
 * A spreadsheet reads a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula: such free text is written behind a `'` (OWASP's CSV injection advice). The JSON keeps
 * the text as sent.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field, quoted when RFC 4180 requires it (a comma, a quote, a line break), quotes doubled. */
function field(column: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FREE_TEXT.has(column) && FORMULA_START.test(text)) text = `'${text}`;
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
  for (const item of items) lines.push(ledgerCsvColumns.map((c) => field(c, item[c])).join(','));
  return {
    ...answer,
    headers: { ...answer.headers, 'content-type': 'text/csv; charset=utf-8; header=present' },
    body: `${lines.join('\r\n')}\r\n`,
  };
}
