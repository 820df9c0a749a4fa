import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  text,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { AGENT_DESCRIPTION_MAX, AGENT_NAME_MAX, AGENT_SLUG_MAX } from '#contract/limits.ts';
import { auditActors, auditTimes, id, int32, primaryId, timestamptz } from './columns.ts';
import {
  agentStatus,
  authenticationMode,
  currencyCode,
  incentiveType,
  inputMode,
  language,
  sessionLength,
} from './enums.ts';
import { themes, workspaces } from './workspaces.ts';

export const agents = pgTable(
  'agents',
  {
    id: primaryId(),
    ...auditTimes(),
    ...auditActors(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    publishedVersionId: id('published_version_id'),
    name: varchar('name', { length: AGENT_NAME_MAX }).notNull(),
    description: varchar('description', { length: AGENT_DESCRIPTION_MAX }),
    slug: varchar('slug', { length: AGENT_SLUG_MAX }).notNull(),
    status: agentStatus('status').notNull().default('DRAFT'),
    sourceTemplateId: id('source_template_id'),
    archivedAt: timestamptz('archived_at'),
    archivedBy: id('archived_by'),
    completedAt: timestamptz('completed_at'),
    completedBy: id('completed_by'),
    publishedAt: timestamptz('published_at'),
    publishedBy: id('published_by'),
  },
  (t) => [
    unique('agents_workspace_slug').on(t.workspaceId, t.slug),
    // Target of the tenant-scoped foreign keys: children must live in their parent's workspace.
    unique('agents_workspace_id').on(t.workspaceId, t.id),
    // Serves GET /agents: newest first, stable under ties.
    index('agents_workspace_created').on(
      t.workspaceId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
  ],
);

export const agentVersions = pgTable(
  'agent_versions',
  {
    id: primaryId(),
    ...auditTimes(),
    ...auditActors(),
    agentId: id('agent_id').notNull(),
    version: int32('version').notNull(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    sourceAgentVersionId: id('source_agent_version_id'),
    themeId: id('theme_id').notNull(),
    incentiveType: incentiveType('incentive_type').notNull().default('NONE'),
    incentiveAmount: int32('incentive_amount'),
    incentiveCurrencyCode: currencyCode('incentive_currency_code'),
    maxParticipants: int32('max_participants'),
    length: sessionLength('length').notNull().default('TEN_MINUTES'),
    languages: language('languages').array().notNull().default(sql`'{en}'`),
    inputMode: inputMode('input_mode').array().notNull().default(sql`'{}'`),
    knowledgeBaseId: id('knowledge_base_id'),
    followUp: boolean('follow_up').notNull().default(false),
    limitToKnowledgeBase: boolean('limit_to_knowledge_base'),
    timezone: varchar('timezone', { length: 255 }),
    authentication: authenticationMode('authentication').notNull().default('NONE'),
    systemPrompt: text('system_prompt'),
    agentFlowId: id('agent_flow_id'),
    config: jsonb('config'),
  },
  (t) => [
    unique('agent_versions_workspace_id').on(t.workspaceId, t.id),
    unique('agent_versions_agent_id').on(t.agentId, t.id),
    foreignKey({
      name: 'agent_versions_agent_fk',
      columns: [t.workspaceId, t.agentId],
      foreignColumns: [agents.workspaceId, agents.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'agent_versions_theme_fk',
      columns: [t.workspaceId, t.themeId],
      foreignColumns: [themes.workspaceId, themes.id],
    }),
    // One number per version of an agent; also serves "the agent's latest version" (highest first).
    uniqueIndex('agent_versions_agent_version').on(t.agentId, t.version.desc().nullsFirst()),
    check('agent_versions_incentive_amount_range', sql`${t.incentiveAmount} between 100 and 1000000`),
    check(
      'agent_versions_config_is_object',
      sql`${t.config} is null or jsonb_typeof(${t.config}) in ('object', 'null')`,
    ),
  ],
);
