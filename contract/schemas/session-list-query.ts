import * as v from 'valibot';
import { sessionStatus, sessionType } from '../enums.ts';
import { ID_MAX } from '../limits.ts';
import { enumList, listQuery, pageParams } from './list-queries.ts';
import { booleanParam, listParam, type QueryParam, textParam } from './query.ts';

// GET /sessions's query, apart from the other lists' (list-queries.ts): its filters are most of
// the lists' schemas, and the other list routes' bundles then never build them.

const idItem = v.pipe(
  v.string(),
  v.regex(
    new RegExp(`^[a-z0-9]{1,${ID_MAX}}$`),
    `must be an identifier: 1 to ${ID_MAX} lower-case letters and digits`,
  ),
);

/**
 * ISO 8601: a date, or a date-time with `Z` or an offset; a real calendar day. Normalised to UTC in
 * milliseconds, the precision `created_at` is stored in, rounded `down` or `up` so that comparing
 * stored times with it means what comparing with the exact instant would (see docs/decisions.md).
 */
// Year 0000 is refused: Postgres has no year zero.
const isoInstant = (round: 'down' | 'up') =>
  v.pipe(
    v.string(),
    v.regex(
      /^(?!0000)(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?$/,
      'must be an ISO 8601 date or date-time with a time zone',
    ),
    v.check((s) => {
      const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
      // Judged only once the shape is right (the pattern above reports the rest).
      return (
        Number.isNaN(y + m + d) || (m >= 1 && m <= 12 && new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d)
      );
    }, 'must be a real calendar date'),
    // Date keeps milliseconds and drops the rest: that is rounding down; up adds one if any was dropped.
    v.transform((s) => {
      const dropped = round === 'up' && /\.\d{3}\d*[1-9]/.test(s) ? 1 : 0;
      return new Date(new Date(s).getTime() + dropped).toISOString();
    }),
    // An offset can carry a valid-looking instant past 9999 or into year 0, which Postgres refuses.
    v.check((iso) => /^(?!0000)\d{4}-/.test(iso), 'must fall between the years 0001 and 9999 in UTC'),
  );
const instantParam = (round: 'down' | 'up', description: string) =>
  textParam(isoInstant(round), `${description} ISO 8601 (a date means its midnight, UTC).`);

const idList = (what: string) => listParam(idItem, `Only sessions of these ${what}.`);

export const sessionListParams = {
  ...pageParams,
  agentId: idList('agents'),
  agentVersionId: idList('agent versions'),
  personId: idList('persons'),
  conversationId: idList('conversations'),
  status: enumList(sessionStatus, 'Only sessions in these states.'),
  type: enumList(sessionType, 'Only sessions of these types.'),
  createdAfter: instantParam('down', 'Only sessions created strictly after this instant.'),
  createdBefore: instantParam('up', 'Only sessions created strictly before this instant.'),
  hasLedger: booleanParam('`true`: only sessions with a ledger entry; `false`: only those without.'),
} satisfies Record<string, QueryParam>;

export const SessionListQuery = listQuery(sessionListParams);
export type SessionListQuery = v.InferOutput<typeof SessionListQuery>;
