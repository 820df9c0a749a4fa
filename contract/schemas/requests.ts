import * as v from 'valibot';
import { inputMode } from '../enums.ts';
import {
  AGENT_DESCRIPTION_MAX,
  AGENT_NAME_MAX,
  AGENT_SLUG_MAX,
  ID_MAX,
  IDEMPOTENCY_KEY_MAX,
} from '../limits.ts';
import { atMost, choiceOf, Id, readableName, readableText, strictJsonObject } from './common.ts';
import { VersionConfigInput } from './config.ts';
import { type QueryParam, queryObject } from './query.ts';

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const unique = <T>(items: T[]) => new Set(items).size === items.length;

const agentName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  atMost(AGENT_NAME_MAX),
  ...readableName,
);
const agentDescription = v.pipe(v.string(), atMost(AGENT_DESCRIPTION_MAX), ...readableText);
const agentSlug = v.pipe(
  v.string(),
  atMost(AGENT_SLUG_MAX),
  v.regex(SLUG_PATTERN, 'must be lower-case letters and digits in words joined by single hyphens'),
);

/** A version's settable fields, as values (each request says what an omitted one means). */
const versionField = {
  config: VersionConfigInput,
  systemPrompt: v.string(),
  knowledgeBaseId: v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(ID_MAX)),
  inputMode: v.pipe(v.array(choiceOf(inputMode)), v.check(unique, 'must not repeat a value')),
  followUp: v.boolean(),
};

/**
 * POST /agents. What a request leaves out takes the default DESIGN.md fixes, here and nowhere else:
 * no description, prompt, knowledge base or config (null), no input modes, no follow-up.
 */
export const CreateAgentBody = strictJsonObject({
  name: agentName,
  description: v.nullish(agentDescription, null),
  slug: v.optional(agentSlug),
  version: v.optional(
    strictJsonObject({
      config: v.nullish(versionField.config, null),
      systemPrompt: v.nullish(versionField.systemPrompt, null),
      knowledgeBaseId: v.nullish(versionField.knowledgeBaseId, null),
      inputMode: v.optional(versionField.inputMode, () => []),
      followUp: v.optional(versionField.followUp, false),
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

/**
 * POST /agents/{agentId}/versions: the same fields as POST /agents' `version`, validated alike, but
 * a member left out is copied from the version the new one is built from (the latest, or
 * `sourceAgentVersionId`); `null` clears a nullable one. `config` is replaced whole.
 */
export const CreateVersionBody = strictJsonObject({
  sourceAgentVersionId: v.optional(Id),
  config: v.optional(v.nullable(versionField.config)),
  systemPrompt: v.optional(v.nullable(versionField.systemPrompt)),
  knowledgeBaseId: v.optional(v.nullable(versionField.knowledgeBaseId)),
  inputMode: v.optional(versionField.inputMode),
  followUp: v.optional(versionField.followUp),
});
export type CreateVersionBody = v.InferOutput<typeof CreateVersionBody>;

/**
 * PATCH /agents/{agentId}, a JSON merge patch (RFC 7396) of the agent's own fields: a member left
 * out is kept, `description: null` clears it; at least one member. The slug is not derived again
 * when the name changes.
 */
export const UpdateAgentBody = v.pipe(
  strictJsonObject({
    name: v.optional(agentName),
    description: v.optional(v.nullable(agentDescription)),
    slug: v.optional(agentSlug),
  }),
  v.check(
    (patch) => Object.values(patch).some((value) => value !== undefined),
    'must change at least one of name, description, slug',
  ),
);
export type UpdateAgentBody = v.InferOutput<typeof UpdateAgentBody>;

/** POST /agents/{agentId}/publish: which of the agent's versions to publish. */
export const PublishAgentBody = strictJsonObject({ versionId: Id });
export type PublishAgentBody = v.InferOutput<typeof PublishAgentBody>;
