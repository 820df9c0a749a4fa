import * as v from 'valibot';
import { agentChangeOperation } from '../enums.ts';
import { Id, Ref, Timestamp } from './common.ts';

/** An agent's ETag as sent in its `ETag` header: `"<agentId>.<updatedAt in epoch ms>"`. */
const Etag = v.pipe(v.string(), v.regex(/^"[^"]*"$/, 'must be a quoted entity tag'));

/**
 * One entry of an agent's history (GET /agents/{agentId}/history): who made which change, when,
 * and the agent's ETag before and after it.
 */
export const AgentChange = v.strictObject({
  id: Id,
  /** When the change was made: the agent's `updatedAt` after it. */
  createdAt: Timestamp,
  workspaceId: Id,
  agentId: Ref,
  /** The version the change made or published; null when it changed the agent alone. */
  agentVersionId: v.nullable(Ref),
  operation: v.picklist(agentChangeOperation),
  /** The principal of the key that made it, and the key's id. */
  principalId: Ref,
  keyId: Ref,
  /** Null for the agent's creation. */
  etagBefore: v.nullable(Etag),
  etagAfter: Etag,
});

export const AgentChangeList = v.array(AgentChange);

export type AgentChange = v.InferOutput<typeof AgentChange>;
