import * as v from 'valibot';
import { AGENT_DESCRIPTION_MAX, AGENT_NAME_MAX, AGENT_SLUG_MAX } from '../limits.ts';
import { atMost, Id, readableName, readableText, strictJsonObject } from './common.ts';

// The agent's own fields and the bodies that change only them. The bodies carrying a version
// (and its configuration's schemas) are version-requests.ts's, so these routes' bundles never
// build those.

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const agentName = /* @__PURE__ */ (() =>
  v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    atMost(AGENT_NAME_MAX),
    ...readableName,
  ))();
export const agentDescription = /* @__PURE__ */ (() =>
  v.pipe(v.string(), atMost(AGENT_DESCRIPTION_MAX), ...readableText))();
export const agentSlug = /* @__PURE__ */ (() =>
  v.pipe(
    v.string(),
    atMost(AGENT_SLUG_MAX),
    v.regex(SLUG_PATTERN, 'must be lower-case letters and digits in words joined by single hyphens'),
  ))();

/**
 * PATCH /agents/{agentId}, a JSON merge patch (RFC 7396) of the agent's own fields: a member left
 * out is kept, `description: null` clears it; at least one member. The slug is not derived again
 * when the name changes.
 */
export const UpdateAgentBody = /* @__PURE__ */ (() =>
  v.pipe(
    strictJsonObject({
      name: v.optional(agentName),
      description: v.optional(v.nullable(agentDescription)),
      slug: v.optional(agentSlug),
    }),
    v.check(
      (patch) => Object.values(patch).some((value) => value !== undefined),
      'must change at least one of name, description, slug',
    ),
  ))();
export type UpdateAgentBody = v.InferOutput<typeof UpdateAgentBody>;

/** POST /agents/{agentId}/publish: which of the agent's versions to publish. */
export const PublishAgentBody = /* @__PURE__ */ (() => strictJsonObject({ versionId: Id }))();
export type PublishAgentBody = v.InferOutput<typeof PublishAgentBody>;
