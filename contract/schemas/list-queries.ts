import * as v from 'valibot';
import { agentStatus } from '../enums.ts';
import { AGENT_NAME_MAX, AGENT_SLUG_MAX, OFFSET_MAX } from '../limits.ts';
import { atMost, choiceOf } from './common.ts';
import {
  booleanParam,
  choiceParam,
  integerParam,
  listParam,
  type QueryParam,
  queryObject,
  routeQuery,
  textParam,
} from './query.ts';

/** The spec's `limit`/`offset`, plus cursor paging, order and an opt-in total. */
export const pageParams = /* @__PURE__ */ (() => ({
  limit: integerParam(1, 250, 'Items per page.', 25),
  offset: integerParam(
    0,
    OFFSET_MAX,
    `Items to skip before the page, at most ${OFFSET_MAX}. Not with \`cursor\`. Deeper pages go by cursor: the \`Link: rel="next"\` of a page whose next offset would pass ${OFFSET_MAX} carries one.`,
    undefined,
    `must be at most ${OFFSET_MAX}: page deeper with cursor (the Link: rel="next" of the page before switches to one)`,
  ),
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
}))();

/** Several of a closed set of words. */
export const enumList = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  listParam(choiceOf(values), what);

const nonEmptyText = (max: number, description: string) =>
  textParam(v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(max)), description);

export const agentListParams = /* @__PURE__ */ (() =>
  ({
    ...pageParams,
    status: enumList(agentStatus, 'Only agents in these states.'),
    slug: nonEmptyText(AGENT_SLUG_MAX, 'Only the agent with exactly this slug.'),
    q: nonEmptyText(AGENT_NAME_MAX, 'Only agents whose name contains this text, ignoring case.'),
  }) satisfies Record<string, QueryParam>)();

/** `cursor` and `offset` are two ways to say where a page starts: one at a time. */
const cursorOrOffset = <T extends { cursor?: string; offset?: number }>() =>
  v.forward<T, v.CheckIssue<T>, ['cursor']>(
    v.check((q) => q.cursor === undefined || q.offset === undefined, 'cannot be combined with offset'),
    ['cursor'] as never,
  );

/** A list's query schema: its parameters (unknown ones refused, each named), `cursor` or `offset`. */
export function listQuery<P extends Record<string, QueryParam>>(params: P) {
  const object = queryObject(params);
  return v.pipe(object, cursorOrOffset<v.InferOutput<typeof object>>());
}

/** A list route's query as its declaration states it: its parameters, checked by `listQuery`. */
export const listRouteQuery = <P extends Record<string, QueryParam>>(params: P) =>
  routeQuery(params, listQuery(params));

export const agentListQuery = /* @__PURE__ */ (() => listRouteQuery(agentListParams))();
export type AgentListQuery = v.InferOutput<typeof agentListQuery.schema>;

/**
 * GET /agents/{agentId}/versions: paging only. Versions are ordered by their number, the agent's
 * own sequence (two versions may share a `createdAt` millisecond; their numbers never tie).
 */
export const versionListParams = /* @__PURE__ */ (() =>
  ({
    ...pageParams,
    order: choiceParam(
      ['desc', 'asc'],
      'By `version` number: newest first (`desc`) or oldest first.',
      'desc',
    ),
  }) satisfies Record<string, QueryParam>)();

export const versionListQuery = /* @__PURE__ */ (() => listRouteQuery(versionListParams))();
export type VersionListQuery = v.InferOutput<typeof versionListQuery.schema>;

/** GET /agents/{agentId}/history: paging only (the agent is the path's). */
export const agentChangeListParams = /* @__PURE__ */ (() =>
  ({ ...pageParams }) satisfies Record<string, QueryParam>)();
export const agentChangeListQuery = /* @__PURE__ */ (() => listRouteQuery(agentChangeListParams))();
export type AgentChangeListQuery = v.InferOutput<typeof agentChangeListQuery.schema>;
