import * as v from 'valibot';
import { ledgerReason, refillReasons } from '../enums.ts';
import { atMost, Id, Int32, readableText, strictJsonObject } from './common.ts';
import { enumList, listRouteQuery, pageParams } from './list-queries.ts';
import {
  choiceParam,
  idItem,
  instantParam,
  listParam,
  type QueryParam,
  queryObject,
  routeQuery,
  textParam,
} from './query.ts';
import type { LedgerEntry } from './session.ts';

// The ledger routes' requests, in a module of their own: no other route's bundle builds them.
// Each is built in a closure marked pure, so a ledger route's bundle drops those it never reads:
// esbuild keeps every other module-level call, as it cannot tell a schema builder has no effects.

export const ledgerListParams = /* @__PURE__ */ (() =>
  ({
    ...pageParams,
    reason: enumList(ledgerReason, 'Only entries with these reasons.'),
    agentId: listParam(idItem, 'Only entries of these agents.'),
    sessionId: listParam(idItem, 'Only entries of these sessions.'),
    createdAfter: instantParam('down', 'Only entries created strictly after this instant.'),
    createdBefore: instantParam('up', 'Only entries created strictly before this instant.'),
  }) satisfies Record<string, QueryParam>)();

export const ledgerListQuery = /* @__PURE__ */ (() => listRouteQuery(ledgerListParams))();
export type LedgerListQuery = v.InferOutput<typeof ledgerListQuery.schema>;

/**
 * A calendar day, `YYYY-MM-DD`, that exists, in the years 1000 to 9998: four-digit years on
 * both sides of the window (its end is the day after `to`).
 */
const Day = /* @__PURE__ */ (() =>
  v.config(
    v.pipe(
      v.string(),
      v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD'),
      v.check((s) => {
        const ms = Date.parse(`${s}T00:00:00.000Z`);
        return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(s);
      }, 'must be a real calendar date'),
      v.check((s) => s >= '1000-01-01' && s <= '9998-12-31', 'must be from 1000-01-01 to 9998-12-31'),
    ),
    { abortPipeEarly: true },
  ))();

/**
 * The three-letter names that are IANA zones. The runtime's zone data (ICU) also takes legacy
 * three-letter ids, each an abbreviation with more than one reading (`IST`: India, Ireland or
 * Israel; ICU reads `BST` as Bangladesh): those are refused, so a day is never counted in a zone
 * the caller did not mean.
 */
const THREE_LETTER_IANA = /^(UTC|UCT|GMT|EST|MST|HST|CET|EET|MET|WET|PRC|ROC|ROK)$/i;

// The zones Intl took: asking it again means making a formatter, which costs far more than a
// lookup. Emptied when full, since a zone may be spelt in any case.
const knownZones = new Set<string>();
const KNOWN_ZONES_MAX = 1_000;

function isKnownZone(zone: string): boolean {
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    return false;
  }
  if (knownZones.size >= KNOWN_ZONES_MAX) knownZones.clear();
  knownZones.add(zone);
  return true;
}

/**
 * An IANA time zone name the runtime (Intl) knows, as `Europe/Paris` or `UTC`: the days' bounds
 * are computed with it (db/queries/local-days.ts). POSIX forms (`+05`, `EST5EDT`-like offsets) are
 * refused, as are abbreviations that are not IANA names (`IST`, `PST`, `BST`).
 */
export const TimeZone = /* @__PURE__ */ (() =>
  v.config(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z][A-Za-z_]*(\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA time zone name, as Europe/Paris'),
      v.check(
        (zone) => !/^[A-Za-z]{3}$/.test(zone) || THREE_LETTER_IANA.test(zone),
        'is an abbreviation, not an IANA time zone name: name the zone, as Asia/Kolkata',
      ),
      v.check(isKnownZone, 'is not a known time zone'),
    ),
    { abortPipeEarly: true },
  ))();

/** The longest report: a year and a day. */
export const USAGE_MAX_DAYS = 366;

export const usageParams = /* @__PURE__ */ (() =>
  ({
    from: textParam(Day, 'The first day of the report (YYYY-MM-DD, in `timezone`). Required.'),
    to: textParam(Day, 'The last day of the report, included (YYYY-MM-DD, in `timezone`). Required.'),
    groupBy: choiceParam(['day', 'agent', 'reason'], 'One group per day, per agent or per reason.', 'day'),
    timezone: textParam(TimeZone, 'The IANA time zone the days are counted in; default `UTC`.'),
  }) satisfies Record<string, QueryParam>)();

/** NaN when either is not a day: that one's own issue names it, not this span's checks. */
const daysBetween = (from: string, to: string) =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

const usageObject = /* @__PURE__ */ (() => queryObject(usageParams))();
type UsageInput = v.InferOutput<typeof usageObject>;
export const UsageQuery = /* @__PURE__ */ (() =>
  v.pipe(
    usageObject,
    v.forward<UsageInput, v.CheckIssue<UsageInput>, ['from']>(
      v.check((q) => q.from !== undefined, 'is required'),
      ['from'] as never,
    ),
    v.forward<UsageInput, v.CheckIssue<UsageInput>, ['to']>(
      v.check((q) => q.to !== undefined, 'is required'),
      ['to'] as never,
    ),
    v.forward<UsageInput, v.CheckIssue<UsageInput>, ['to']>(
      v.check(
        (q) => q.from === undefined || q.to === undefined || !(daysBetween(q.from, q.to) < 0),
        'must not be before from',
      ),
      ['to'] as never,
    ),
    v.forward<UsageInput, v.CheckIssue<UsageInput>, ['to']>(
      v.check(
        (q) => q.from === undefined || q.to === undefined || !(daysBetween(q.from, q.to) >= USAGE_MAX_DAYS),
        `must be less than ${USAGE_MAX_DAYS} days after from`,
      ),
      ['to'] as never,
    ),
    v.transform((q) => ({ ...q, from: q.from as string, to: q.to as string, timezone: q.timezone ?? 'UTC' })),
  ))();
export type UsageQuery = v.InferOutput<typeof UsageQuery>;
export const usageQuery = /* @__PURE__ */ (() => routeQuery(usageParams, UsageQuery))();

/**
 * POST /ledger/credits: a refill, positive. A REDEMPTION_CODE credit names its code; no other does.
 */
export const CreditBody = /* @__PURE__ */ (() =>
  v.pipe(
    strictJsonObject({
      amount: v.pipe(Int32, v.minValue(1, 'must be at least 1')),
      reason: v.picklist(refillReasons, `must be one of ${refillReasons.join(', ')}`),
      reasonDetails: v.nullish(
        v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(255), ...readableText),
        null,
      ),
      redemptionCodeId: v.nullish(Id, null),
    }),
    v.forward(
      v.check(
        (b) => (b.reason === 'REDEMPTION_CODE') === (b.redemptionCodeId !== null),
        'is required with reason REDEMPTION_CODE, and only with it',
      ),
      ['redemptionCodeId'],
    ),
  ))();
export type CreditBody = v.InferOutput<typeof CreditBody>;

/** The columns of GET /ledger's CSV (`Accept: text/csv`): a ledger entry's fields, in the JSON's order. */
export const ledgerCsvColumns = [
  'id',
  'createdAt',
  'updatedAt',
  'createdBy',
  'updatedBy',
  'workspaceId',
  'amount',
  'reason',
  'reasonDetails',
  'redemptionCodeId',
  'agentId',
  'sessionId',
  'idempotencyKey',
] as const satisfies readonly (keyof LedgerEntry)[];
