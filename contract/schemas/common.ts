import * as v from 'valibot';
import { ID_MAX } from '../limits.ts';

/** Identifier fields: cuid2, at most 24 characters. */
export const Id = v.pipe(v.string(), v.maxLength(ID_MAX), v.cuid2());
/** Reference fields the spec types only as "string, max 24". */
export const Ref = /* @__PURE__ */ (() => v.pipe(v.string(), v.maxLength(ID_MAX)))();

/** Every timestamp we emit: ISO 8601, UTC, milliseconds (`2026-11-21T10:00:00.000Z`). */
export const Timestamp = /* @__PURE__ */ (() =>
  v.pipe(
    v.string(),
    v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be an ISO 8601 UTC timestamp'),
  ))();

/**
 * A timestamp a client sends: `Timestamp`'s shape and a real instant (not month 13, 2026-02-30,
 * hour 99 or second 60), refused with a message naming the field rather than reaching `Date`. Year
 * 0000 too: Postgres has none.
 */
export const Instant = /* @__PURE__ */ (() =>
  v.pipe(
    Timestamp,
    v.check((s) => {
      const ms = Date.parse(s);
      return Number.isFinite(ms) && new Date(ms).toISOString() === s && !s.startsWith('0000');
    }, 'must be a real instant'),
  ))();

/** E.164 shape as the spec words it: `+`, a digit 1-9, then 1 to 15 digits. */
export const E164 = /^\+[1-9]\d{1,15}$/;

/** The message of every closed set of values. */
export const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/** One of `values`, refused with `oneOf`'s message. */
export const choiceOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, oneOf(values));

export const Int32 = /* @__PURE__ */ (() =>
  v.pipe(v.number(), v.integer(), v.minValue(-2147483648), v.maxValue(2147483647)))();

/** Characters as Postgres counts them: Unicode code points (an emoji is one, not two UTF-16 units). */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    n++;
  }
  return n;
}

/**
 * A length limit, with the message every field over its limit gets: Valibot's maxLength, counted
 * in code points as Postgres and JSON Schema count them. It stays a `max_length` action, so the
 * OpenAPI document still says `maxLength`.
 */
export function atMost(max: number) {
  const action = v.maxLength<string, number, string>(max, `must be at most ${max} characters`);
  return {
    ...action,
    '~run'(dataset, config) {
      if (dataset.typed && codePoints(dataset.value) > max) {
        v._addIssue(this, 'length', dataset, config, { received: `${codePoints(dataset.value)}` });
      }
      return dataset;
    },
  } satisfies typeof action;
}

export const text = (max: number) => v.pipe(v.string(), atMost(max));

/**
 * A pattern built on its first use rather than at import: V8 builds a Unicode property class's
 * character set when the literal is first evaluated, a large share of a cold start's module
 * evaluation, and most routes never validate a name.
 */
const onFirstUse = (build: () => RegExp) => {
  let pattern: RegExp | undefined;
  return () => {
    pattern ??= build();
    return pattern;
  };
};

// C0 and C1 controls (and DEL), and the bidirectional embeddings, overrides and isolates that
// make text display in another order than it is stored (U+202A-U+202E, U+2066-U+2069).
const CONTROL = onFirstUse(() => /\p{Cc}/u);
const BIDI_CONTROL = onFirstUse(() => /[\u202a-\u202e\u2066-\u2069]/u);
const VISIBLE = onFirstUse(() => /[\p{L}\p{N}\p{P}\p{S}]/u);
// Code points that render as nothing (U+200B, U+2060, U+FEFF, U+3164 HANGUL FILLER, which is a
// letter): a name of only these looks empty. U+2028/U+2029 break a line, which a name never does.
const INVISIBLE = onFirstUse(() => /\p{Default_Ignorable_Code_Point}/gu);
const LINE_SEPARATOR = onFirstUse(() => /[\u2028\u2029]/u);

const refuse = (pattern: () => RegExp, message: string, allowed?: RegExp) =>
  v.check<string, string>((s) => !pattern().test(allowed ? s.replace(allowed, '') : s), message);

/** A name people read: at least one visible character, no control characters, no bidi overrides. */
export const readableName = /* @__PURE__ */ (() =>
  [
    refuse(CONTROL, 'must not contain control characters'),
    refuse(BIDI_CONTROL, 'must not contain bidirectional override characters'),
    refuse(LINE_SEPARATOR, 'must not contain line or paragraph separators (U+2028, U+2029)'),
    v.check<string, string>(
      (s) => s === '' || VISIBLE().test(s.replace(INVISIBLE(), '')),
      'must contain at least one visible character',
    ),
  ] as const)();

/** Free text: may keep line breaks and tabs, but no other control characters or bidi overrides. */
export const readableText = /* @__PURE__ */ (() =>
  [
    refuse(CONTROL, 'must not contain control characters other than line breaks and tabs', /[\t\n\r]/g),
    refuse(BIDI_CONTROL, 'must not contain bidirectional override characters'),
  ] as const)();

export const FreeFormObject = /* @__PURE__ */ (() => v.record(v.string(), v.unknown()))();

export const auditTimes = /* @__PURE__ */ (() => ({ createdAt: Timestamp, updatedAt: Timestamp }))();
export const auditActors = /* @__PURE__ */ (() => ({
  createdBy: v.nullable(Id),
  updatedBy: v.nullable(Id),
}))();

type Keyed = Record<string, unknown>;

const unknownKeyIssue = (input: Keyed, key: string) => ({
  message: 'is not a known field',
  path: [{ type: 'object', origin: 'key', input, key, value: input[key] }] as [v.ObjectPathItem],
});

// Loose objects drop these keys from their output (prototype safety), so they are looked for in
// the input, before the object is parsed. Finding one stops the pipe there (the fields' own checks
// do not run), so every unknown key of the input is named here, reserved or not.
const RESERVED = ['__proto__', 'prototype', 'constructor'];
const noReservedKeys = (entries: v.ObjectEntries) =>
  v.rawCheck<unknown>(({ dataset, addIssue }) => {
    const input = dataset.value as Keyed;
    if (typeof input !== 'object' || input === null) return;
    if (!RESERVED.some((key) => Object.hasOwn(input, key) && !Object.hasOwn(entries, key))) return;
    for (const key of Object.keys(input)) {
      if (!Object.hasOwn(entries, key)) addIssue(unknownKeyIssue(input, key));
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

/**
 * A free-form JSON object a client sends (`person.properties`): an object, not an array, without
 * the reserved keys (`__proto__`, `constructor`, `prototype`), each one found refused by name
 * rather than dropped: what is stored is what was sent.
 */
export const FreeFormInput = /* @__PURE__ */ (() =>
  v.pipe(
    v.unknown(),
    v.check((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'must be a JSON object'),
    v.rawCheck<unknown>(({ dataset, addIssue }) => {
      const input = dataset.value as Keyed;
      if (typeof input !== 'object' || input === null) return;
      for (const key of RESERVED) {
        if (!Object.hasOwn(input, key)) continue;
        addIssue({
          message: `is a reserved key (${RESERVED.join(', ')} are refused)`,
          path: [{ type: 'object', origin: 'key', input, key, value: input[key] }] as [v.ObjectPathItem],
        });
      }
    }),
    FreeFormObject,
  ))();

/** The body of an operation that takes no fields (an empty object, or no body): POST .../start, .../heartbeat. */
export const EmptyBody = /* @__PURE__ */ (() => strictJsonObject({}))();
