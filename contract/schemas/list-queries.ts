import * as v from 'valibot';
import { agentStatus, sessionStatus, sessionType } from '../enums.ts';
import { AGENT_NAME_MAX, AGENT_SLUG_MAX, ID_MAX } from '../limits.ts';
import { atMost, choiceOf } from './common.ts';
import {
  booleanParam,
  choiceParam,
  integerParam,
  listParam,
  type QueryParam,
  queryObject,
  textParam,
} from './query.ts';

const idItem = v.pipe(
  v.string(),
  v.regex(
    new RegExp(`^[a-z0-9]{1,${ID_MAX}}$`),
    `must be an identifier: 1 to ${ID_MAX} lower-case letters and digits`,
  ),
);

/** The spec's `limit`/`offset`, plus cursor paging, order and an opt-in total. */
export const pageParams = {
  limit: integerParam(1, 250, 'Items per page.', 25),
  offset: integerParam(0, Number.MAX_SAFE_INTEGER, 'Items to skip before the page. Not with `cursor`.'),
  cursor: textParam(
    v.pipe(v.string(), atMost(1024)),
    'Keyset paging: the value from a `Link: rel="next"` cursor, or empty to start. Stable while rows are added.',
  ),
  order: choiceParam(
    ['desc', 'asc'],
    'By `createdAt` then `id`: newest first (`desc`) or oldest first.',
    'desc',
  ),
  includeTotal: booleanParam(
    '`true` adds `X-Total-Count`: how many items match the filters (costs a count).',
  ),
};

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
const enumList = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  listParam(choiceOf(values), what);

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

const nonEmptyText = (max: number, description: string) =>
  textParam(v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(max)), description);

export const agentListParams = {
  ...pageParams,
  status: enumList(agentStatus, 'Only agents in these states.'),
  slug: nonEmptyText(AGENT_SLUG_MAX, 'Only the agent with exactly this slug.'),
  q: nonEmptyText(AGENT_NAME_MAX, 'Only agents whose name contains this text, ignoring case.'),
} satisfies Record<string, QueryParam>;

/** `cursor` and `offset` are two ways to say where a page starts: one at a time. */
const cursorOrOffset = <T extends { cursor?: string; offset?: number }>() =>
  v.forward<T, v.CheckIssue<T>, ['cursor']>(
    v.check((q) => q.cursor === undefined || q.offset === undefined, 'cannot be combined with offset'),
    ['cursor'] as never,
  );

const sessionQueryObject = queryObject(sessionListParams);
const agentQueryObject = queryObject(agentListParams);
export const SessionListQuery = v.pipe(
  sessionQueryObject,
  cursorOrOffset<v.InferOutput<typeof sessionQueryObject>>(),
);
export const AgentListQuery = v.pipe(
  agentQueryObject,
  cursorOrOffset<v.InferOutput<typeof agentQueryObject>>(),
);
export type SessionListQuery = v.InferOutput<typeof SessionListQuery>;
export type AgentListQuery = v.InferOutput<typeof AgentListQuery>;

/**
 * GET /agents/{agentId}/versions: paging only. Versions are ordered by their number, the agent's
 * own sequence (two versions may share a `createdAt` millisecond; their numbers never tie).
 */
export const versionListParams = {
  ...pageParams,
  order: choiceParam(['desc', 'asc'], 'By `version` number: newest first (`desc`) or oldest first.', 'desc'),
} satisfies Record<string, QueryParam>;

const versionQueryObject = queryObject(versionListParams);
export const VersionListQuery = v.pipe(
  versionQueryObject,
  cursorOrOffset<v.InferOutput<typeof versionQueryObject>>(),
);
export type VersionListQuery = v.InferOutput<typeof VersionListQuery>;

/** GET /agents/{agentId}/history: paging only (the agent is the path's). */
export const agentChangeListParams = { ...pageParams } satisfies Record<string, QueryParam>;
const agentChangeQueryObject = queryObject(agentChangeListParams);
export const AgentChangeListQuery = v.pipe(
  agentChangeQueryObject,
  cursorOrOffset<v.InferOutput<typeof agentChangeQueryObject>>(),
);
export type AgentChangeListQuery = v.InferOutput<typeof AgentChangeListQuery>;
