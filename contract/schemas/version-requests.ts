import * as v from 'valibot';
import { inputMode } from '../enums.ts';
import { ID_MAX } from '../limits.ts';
import { atMost, choiceOf, Id, strictJsonObject } from './common.ts';
import { VersionConfigInput } from './config.ts';
import { agentDescription, agentName, agentSlug } from './requests.ts';

const unique = <T>(items: T[]) => new Set(items).size === items.length;

/** A version's settable fields, as values (each request says what an omitted one means). */
const versionField = /* @__PURE__ */ (() => ({
  config: VersionConfigInput,
  systemPrompt: v.string(),
  knowledgeBaseId: v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(ID_MAX)),
  inputMode: v.pipe(v.array(choiceOf(inputMode)), v.check(unique, 'must not repeat a value')),
  followUp: v.boolean(),
}))();

/**
 * POST /agents. What a request leaves out takes the default DESIGN.md fixes, here and nowhere else:
 * no description, prompt, knowledge base or config (null), no input modes, no follow-up.
 */
export const CreateAgentBody = /* @__PURE__ */ (() =>
  strictJsonObject({
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
  }))();
export type CreateAgentBody = v.InferOutput<typeof CreateAgentBody>;

/**
 * POST /agents/{agentId}/versions: the same fields as POST /agents' `version`, validated alike, but
 * a member left out is copied from the version the new one is built from (the latest, or
 * `sourceAgentVersionId`); `null` clears a nullable one. `config` is replaced whole.
 */
export const CreateVersionBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    sourceAgentVersionId: v.optional(Id),
    config: v.optional(v.nullable(versionField.config)),
    systemPrompt: v.optional(v.nullable(versionField.systemPrompt)),
    knowledgeBaseId: v.optional(v.nullable(versionField.knowledgeBaseId)),
    inputMode: v.optional(versionField.inputMode),
    followUp: v.optional(versionField.followUp),
  }))();
export type CreateVersionBody = v.InferOutput<typeof CreateVersionBody>;
