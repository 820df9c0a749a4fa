import * as v from 'valibot';
import { ID_MAX } from '../limits.ts';
import { choiceOf, knownKeysOnly } from './common.ts';

/**
 * One query parameter: how it is validated (a Valibot schema over the raw string), whether it may be
 * repeated (`?status=A&status=B`, same as `?status=A,B`), and what it means. Declared once, read by
 * the parser and the document generator, which derives the parameter's JSON Schema from `schema`:
 * each pipe ends in the schema of the value it yields (a number, a boolean, an array), so the
 * OpenAPI document describes the typed value and its bounds from the very checks that enforce them.
 */
export interface QueryParam<S extends v.GenericSchema = v.GenericSchema> {
  readonly schema: S;
  readonly repeatable: boolean;
  readonly description: string;
}

type Optional<S extends v.GenericSchema> = v.OptionalSchema<S, undefined>;

/**
 * A whole number in [min, max]: digits only, so `1.5`, `1e2`, `+3` and `` are refused; any number
 * of digits, so a huge one is told the bound it passed rather than that it is not a number.
 */
export function integerParam<F extends number | undefined = undefined>(
  min: number,
  max: number,
  description: string,
  fallback?: F,
  /** What a value above `max` is told, when more than its bound. */
  aboveMax = `must be at most ${max}`,
) {
  // The first failed check ends it: a number too long for a double is Infinity, told only its bound
  // (`integer` stays last for the JSON Schema's `type: integer`; digits-only values always pass it).
  const schema = v.config(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'must be a whole number'),
      v.transform(Number),
      v.number(),
      v.minValue(min, `must be at least ${min}`),
      v.maxValue(max, aboveMax),
      v.integer(),
    ),
    { abortPipeEarly: true },
  );
  return {
    // A default makes the parsed value always present (typed so): it runs through the same checks.
    schema: v.optional(
      schema,
      (fallback === undefined ? undefined : String(fallback)) as F extends number ? string : undefined,
    ),
    repeatable: false,
    description,
  } satisfies QueryParam;
}

/** One of a fixed set of words. */
export function choiceParam<
  const T extends readonly [string, ...string[]],
  F extends T[number] | undefined = undefined,
>(values: T, description: string, fallback?: F) {
  return {
    schema: v.optional(choiceOf(values), fallback as F),
    repeatable: false,
    description,
  } satisfies QueryParam;
}

export const booleanParam = (description: string) => {
  const param = choiceParam(['true', 'false'], description);
  return {
    ...param,
    schema: v.pipe(
      param.schema,
      v.transform((s) => (s === undefined ? undefined : s === 'true')),
      v.optional(v.boolean()),
    ),
  };
};

/** Several values, repeated or comma-separated, each checked by `item`; at most `max` of them. */
export function listParam<S extends v.GenericSchema<string, unknown>>(
  item: S,
  description: string,
  max = 50,
) {
  return {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.transform((s) => s.split(',')),
        v.array(item),
        v.maxLength(max, `must list at most ${max} values`),
      ),
    ),
    repeatable: true,
    description: `${description} Several values: repeat the parameter or separate them with commas.`,
  } satisfies QueryParam;
}

export function textParam(schema: v.GenericSchema<string, string>, description: string) {
  return {
    schema: v.optional(schema) as Optional<typeof schema>,
    repeatable: false,
    description,
  } satisfies QueryParam;
}

/** The Valibot object for a set of parameters: unknown parameters are refused like unknown fields. */
export function queryObject<P extends Record<string, QueryParam>>(params: P) {
  const entries = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, p.schema])) as {
    [K in keyof P]: P[K]['schema'];
  };
  return knownKeysOnly(entries);
}

/**
 * A route's query string, as its declaration states it (functions/http/route.ts parses it before
 * the handler runs): the parameters, which the OpenAPI generator describes, and the schema they
 * make (unknown parameters refused; a list's also refuses `cursor` with `offset`).
 */
export interface RouteQuery<S extends v.GenericSchema = v.GenericSchema> {
  readonly params: Record<string, QueryParam>;
  readonly schema: S;
}

export function routeQuery<P extends Record<string, QueryParam>>(
  params: P,
): RouteQuery<ReturnType<typeof queryObject<P>>>;
export function routeQuery<S extends v.GenericSchema>(
  params: Record<string, QueryParam>,
  schema: S,
): RouteQuery<S>;
export function routeQuery(params: Record<string, QueryParam>, schema?: v.GenericSchema): RouteQuery {
  return { params, schema: schema ?? queryObject(params) };
}

/** An operation that takes no query parameters: any given is refused, each named (400). */
export const noQueryParams = {} satisfies Record<string, QueryParam>;
export const NoQuery = /* @__PURE__ */ (() => queryObject(noQueryParams))();
/** What a route that takes no query parameters declares. */
export const noQuery: RouteQuery<typeof NoQuery> = { params: noQueryParams, schema: NoQuery };

/** One identifier as a filter value. */
export const idItem = /* @__PURE__ */ (() =>
  v.pipe(
    v.string(),
    v.regex(
      new RegExp(`^[a-z0-9]{1,${ID_MAX}}$`),
      `must be an identifier: 1 to ${ID_MAX} lower-case letters and digits`,
    ),
  ))();

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
export const instantParam = (round: 'down' | 'up', description: string) =>
  textParam(isoInstant(round), `${description} ISO 8601 (a date means its midnight, UTC).`);
