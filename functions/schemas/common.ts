import * as v from 'valibot';

/** Identifier fields: cuid2, at most 24 characters. */
export const Id = v.pipe(v.string(), v.maxLength(24), v.cuid2());
/** Reference fields the spec types only as "string, max 24". */
export const Ref = v.pipe(v.string(), v.maxLength(24));

/** Every timestamp we emit: ISO 8601, UTC, milliseconds (`2026-11-21T10:00:00.000Z`). */
export const Timestamp = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be an ISO 8601 UTC timestamp'),
);

export const Int32 = v.pipe(v.number(), v.integer(), v.minValue(-2147483648), v.maxValue(2147483647));

export const text = (max: number) =>
  v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

export const FreeFormObject = v.record(v.string(), v.unknown());

export const auditTimes = { createdAt: Timestamp, updatedAt: Timestamp };
export const auditActors = { createdBy: v.nullable(Id), updatedBy: v.nullable(Id) };

/**
 * A strict JSON object: an object, not an array (Valibot's object schemas accept arrays, being
 * `typeof` objects), whose unknown fields are refused, each one named. Valibot's strictObject names
 * only the first unknown key, so a loose object (its output keeps every key) is checked instead.
 * The OpenAPI generator shows these as `additionalProperties: false`.
 */
export const strictJsonObject = <E extends v.ObjectEntries>(entries: E) =>
  v.pipe(
    v.unknown(),
    v.check((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'must be a JSON object'),
    v.looseObject(entries),
    v.rawCheck(({ dataset, addIssue }) => {
      const input = dataset.value as Record<string, unknown>;
      for (const key of Object.keys(input)) {
        if (Object.hasOwn(entries, key)) continue;
        addIssue({
          message: 'is not a known field',
          path: [{ type: 'object', origin: 'key', input, key, value: input[key] }],
        });
      }
    }),
  );
