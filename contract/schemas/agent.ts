import * as v from 'valibot';
import {
  agentStatus,
  authenticationMode,
  currencyCode,
  incentiveType,
  inputMode,
  language,
  sessionLength,
} from '../enums.ts';
import { AGENT_DESCRIPTION_MAX, AGENT_NAME_MAX, AGENT_SLUG_MAX } from '../limits.ts';
import { auditActors, auditTimes, Id, Int32, Ref, Timestamp, text } from './common.ts';
import { VersionConfig } from './config.ts';

export const AgentVersion = v.strictObject({
  id: Id,
  ...auditTimes,
  ...auditActors,
  agentId: Ref,
  version: Int32,
  workspaceId: Ref,
  sourceAgentVersionId: v.nullable(Ref),
  themeId: Ref,
  incentiveType: v.picklist(incentiveType),
  incentiveAmount: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(1_000_000))),
  incentiveCurrencyCode: v.nullable(v.picklist(currencyCode)),
  maxParticipants: v.nullable(Int32),
  length: v.picklist(sessionLength),
  languages: v.array(v.picklist(language)),
  inputMode: v.array(v.picklist(inputMode)),
  knowledgeBaseId: v.nullable(Ref),
  followUp: v.boolean(),
  limitToKnowledgeBase: v.nullable(v.boolean()),
  timezone: v.nullable(text(255)),
  authentication: v.picklist(authenticationMode),
  systemPrompt: v.nullable(v.string()),
  agentFlowId: v.nullable(Ref),
  config: v.nullable(VersionConfig),
});

export const Agent = v.strictObject({
  id: Id,
  ...auditTimes,
  ...auditActors,
  workspaceId: Id,
  publishedVersionId: v.nullable(Ref),
  name: text(AGENT_NAME_MAX),
  description: v.nullable(text(AGENT_DESCRIPTION_MAX)),
  slug: text(AGENT_SLUG_MAX),
  status: v.picklist(agentStatus),
  sourceTemplateId: v.nullable(Ref),
  archivedAt: v.nullable(Timestamp),
  archivedBy: v.nullable(Ref),
  completedAt: v.nullable(Timestamp),
  completedBy: v.nullable(Ref),
  publishedAt: v.nullable(Timestamp),
  publishedBy: v.nullable(Ref),
  version: AgentVersion,
});

export const AgentList = v.array(Agent);

/** GET /agents/{agentId}/versions: the versions themselves, as an agent embeds its latest. */
export const AgentVersionList = v.array(AgentVersion);

/**
 * What a version configures, the document GET …/diff/… compares: every field but the version's
 * identity, numbering, provenance and audit (id, agentId, workspaceId, version,
 * sourceAgentVersionId, createdAt/By, updatedAt/By).
 */
export const VERSION_CONFIGURATION_FIELDS = [
  'themeId',
  'incentiveType',
  'incentiveAmount',
  'incentiveCurrencyCode',
  'maxParticipants',
  'length',
  'languages',
  'inputMode',
  'knowledgeBaseId',
  'followUp',
  'limitToKnowledgeBase',
  'timezone',
  'authentication',
  'systemPrompt',
  'agentFlowId',
  'config',
] as const satisfies readonly (keyof v.InferOutput<typeof AgentVersion>)[];

export type AgentVersion = v.InferOutput<typeof AgentVersion>;
export type Agent = v.InferOutput<typeof Agent>;
