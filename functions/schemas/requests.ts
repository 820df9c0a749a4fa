import * as v from 'valibot';
import { inputMode } from '#db/schema/enums.ts';
import { strictJsonObject } from './common.ts';
import { VersionConfigInput } from './config.ts';

const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/** A query-string integer: digits only, so `1.5`, `1e2`, `+3`, `0x10` and `` are refused. */
const queryInteger = (min: number, max: number, fallback: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,16}$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(min, `must be at least ${min}`),
      v.maxValue(max, `must be at most ${max}`),
    ),
    fallback,
  );

/** `limit` and `offset`, read from the query string (see docs/decisions.md). */
export const PageQuery = v.strictObject({
  limit: queryInteger(1, 250, '25'),
  offset: queryInteger(0, MAX_OFFSET, '0'),
});
export type PageQuery = v.InferOutput<typeof PageQuery>;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const unique = <T>(items: T[]) => new Set(items).size === items.length;

export const CreateAgentBody = strictJsonObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(255, 'must be at most 255 characters'),
  ),
  description: v.nullish(v.pipe(v.string(), v.maxLength(500, 'must be at most 500 characters'))),
  slug: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(255, 'must be at most 255 characters'),
      v.regex(SLUG_PATTERN, 'must be lower-case letters and digits in words joined by single hyphens'),
    ),
  ),
  version: v.optional(
    strictJsonObject({
      config: v.nullish(VersionConfigInput),
      systemPrompt: v.nullish(v.string()),
      knowledgeBaseId: v.nullish(
        v.pipe(
          v.string(),
          v.minLength(1, 'must not be empty'),
          v.maxLength(24, 'must be at most 24 characters'),
        ),
      ),
      inputMode: v.optional(
        v.pipe(
          v.array(v.picklist(inputMode.enumValues, `must be one of ${inputMode.enumValues.join(', ')}`)),
          v.check(unique, 'must not repeat a value'),
        ),
      ),
      followUp: v.optional(v.boolean()),
    }),
  ),
});
export type CreateAgentBody = v.InferOutput<typeof CreateAgentBody>;
