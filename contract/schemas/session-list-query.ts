import type * as v from 'valibot';
import { sessionStatus, sessionType } from '../enums.ts';
import { enumList, listRouteQuery, pageParams } from './list-queries.ts';
import { booleanParam, idItem, instantParam, listParam, type QueryParam } from './query.ts';

// GET /sessions's query, apart from the other lists' (list-queries.ts): its filters are most of
// the lists' schemas, and the other list routes' bundles then never build them.

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

export const sessionListQuery = listRouteQuery(sessionListParams);
export type SessionListQuery = v.InferOutput<typeof sessionListQuery.schema>;
