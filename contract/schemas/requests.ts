import * as v from 'valibot';
import { inputMode } from '../enums.ts';
import {
  AGENT_DESCRIPTION_MAX,
  AGENT_NAME_MAX,
  AGENT_SLUG_MAX,
  ID_MAX,
  IDEMPOTENCY_KEY_MAX,
} from '../limits.ts';
import { atMost, choiceOf, readableName, readableText, strictJsonObject } from './common.ts';
import { VersionConfigInput } from './config.ts';
import { type QueryParam, queryObject } from './query.ts';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const unique = <T>(items: T[]) => new Set(items).size === items.length;

/**
 * POST /agents. What a request leaves out takes the default DESIGN.md fixes, here and nowhere else:
 * no description, prompt, knowledge base or config (null), no input modes, no follow-up.
 */
export const CreateAgentBody = strictJsonObject({
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    atMost(AGENT_NAME_MAX),
    ...readableName,
  ),
  description: v.nullish(v.pipe(v.string(), atMost(AGENT_DESCRIPTION_MAX), ...readableText), null),
  slug: v.optional(
    v.pipe(
      v.string(),
      atMost(AGENT_SLUG_MAX),
      v.regex(SLUG_PATTERN, 'must be lower-case letters and digits in words joined by single hyphens'),
    ),
  ),
  version: v.optional(
    strictJsonObject({
      config: v.nullish(VersionConfigInput, null),
      systemPrompt: v.nullish(v.string(), null),
      knowledgeBaseId: v.nullish(
        v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(ID_MAX)),
        null,
      ),
      inputMode: v.optional(
        v.pipe(v.array(choiceOf(inputMode)), v.check(unique, 'must not repeat a value')),
        () => [],
      ),
      followUp: v.optional(v.boolean(), false),
    }),
    {},
  ),
});
export type CreateAgentBody = v.InferOutput<typeof CreateAgentBody>;

/** POST /agents takes no query parameters: any is refused by name, as the lists refuse unknown ones. */
export const createAgentParams = {} satisfies Record<string, QueryParam>;
export const CreateAgentQuery = queryObject(createAgentParams);

/** An operation that takes no query parameters: any given is refused, each named (400). */
export const noQueryParams = {} satisfies Record<string, QueryParam>;
export const NoQuery = queryObject(noQueryParams);

/** The optional `Idempotency-Key` header of a create: 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters. */
const idempotencyKeyMessage = `must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters`;
export const IdempotencyKey = v.pipe(
  v.string(),
  v.minLength(1, idempotencyKeyMessage),
  v.maxLength(IDEMPOTENCY_KEY_MAX, idempotencyKeyMessage),
  v.regex(/^[\x21-\x7e]+$/, idempotencyKeyMessage),
);
