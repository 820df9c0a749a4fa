import * as v from 'valibot';
import { inputMode } from '../enums.ts';
import { strictJsonObject } from './common.ts';
import { VersionConfigInput } from './config.ts';

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
          v.array(v.picklist(inputMode, `must be one of ${inputMode.join(', ')}`)),
          v.check(unique, 'must not repeat a value'),
        ),
      ),
      followUp: v.optional(v.boolean()),
    }),
  ),
});
export type CreateAgentBody = v.InferOutput<typeof CreateAgentBody>;
