import * as v from 'valibot';

/** A JSON Pointer (RFC 6901): `/`-separated tokens, `~` escaped as `~0` and `/` as `~1`. */
const JsonPointer = v.pipe(v.string(), v.regex(/^(\/([^~/]|~[01])*)*$/, 'must be a JSON Pointer (RFC 6901)'));

// Any JSON value: what the configuration holds at that pointer.
const value = v.unknown();

/**
 * An RFC 6902 JSON Patch as GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId} answers
 * it: the operations it uses (`add`, `remove`, `replace`), applied in order.
 */
export const JsonPatch = v.array(
  v.variant('op', [
    v.strictObject({ op: v.literal('add'), path: JsonPointer, value }),
    v.strictObject({ op: v.literal('remove'), path: JsonPointer }),
    v.strictObject({ op: v.literal('replace'), path: JsonPointer, value }),
  ]),
);
export type JsonPatch = v.InferOutput<typeof JsonPatch>;
