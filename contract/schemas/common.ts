import * as v from 'valibot';
import { ID_MAX } from '../limits.ts';

/** Identifier fields: cuid2, at most 24 characters. */
export const Id = v.pipe(v.string(), v.maxLength(ID_MAX), v.cuid2());
/** Reference fields the spec types only as "string, max 24". */
export const Ref = v.pipe(v.string(), v.maxLength(ID_MAX));

/** Every timestamp we emit: ISO 8601, UTC, milliseconds (`2026-11-21T10:00:00.000Z`). */
export const Timestamp = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be an ISO 8601 UTC timestamp'),
);

export const Int32 = v.pipe(v.number(), v.integer(), v.minValue(-2147483648), v.maxValue(2147483647));

/** A length limit, with the message every field over its limit gets. */
export const atMost = (max: number) =>
  v.maxLength<string, number, string>(max, `must be at most ${max} characters`);

export const text = (max: number) => v.pipe(v.string(), atMost(max));

export const FreeFormObject = v.record(v.string(), v.unknown());

export const auditTimes = { createdAt: Timestamp, updatedAt: Timestamp };
export const auditActors = { createdBy: v.nullable(Id), updatedBy: v.nullable(Id) };

type Keyed = Record<string, unknown>;

const unknownKeyIssue = (input: Keyed, key: string) => ({
  message: 'is not a known field',
  path: [{ type: 'object', origin: 'key', input, key, value: input[key] }] as [v.ObjectPathItem],
});

// Loose objects drop these keys from their output (prototype safety), so they are looked for in
// the input, before the object is parsed. Finding one stops the pipe there: reported alone.
const RESERVED = ['__proto__', 'prototype', 'constructor'];
const noReservedKeys = (entries: v.ObjectEntries) =>
  v.rawCheck<unknown>(({ dataset, addIssue }) => {
    const input = dataset.value as Keyed;
    if (typeof input !== 'object' || input === null) return;
    for (const key of RESERVED) {
      if (Object.hasOwn(input, key) && !Object.hasOwn(entries, key)) addIssue(unknownKeyIssue(input, key));
    }
  });

/**
 * Refuses every key `entries` does not name, each one reported (Valibot's strictObject names only
 * the first): a loose object, whose output keeps the other keys, checked afterwards.
 */
export const knownKeysOnly = <E extends v.ObjectEntries>(entries: E) =>
  v.pipe(
    v.unknown(),
    noReservedKeys(entries),
    v.looseObject(entries),
    v.rawCheck(({ dataset, addIssue }) => {
      const output = dataset.value as Keyed;
      for (const key of Object.keys(output))
        if (!Object.hasOwn(entries, key)) addIssue(unknownKeyIssue(output, key));
    }),
  );

/**
 * A strict JSON object: an object, not an array (Valibot's object schemas accept arrays, being
 * `typeof` objects), whose unknown fields are refused, each one named. The OpenAPI generator shows
 * these as `additionalProperties: false`.
 */
export const strictJsonObject = <E extends v.ObjectEntries>(entries: E) =>
  v.pipe(
    v.unknown(),
    v.check((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'must be a JSON object'),
    knownKeysOnly(entries),
  );
