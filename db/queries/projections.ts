import sql, { empty, type Sql } from 'sql-template-tag';

// Each resource's JSON, built in the statement that reads or writes it: one serializer per resource
// for reads and writes alike. Each lists its fields explicitly, in answer order: a column added to a
// table reaches no answer until it is written here and in the response schema in contract/. Every
// fragment reads a fixed alias (`a` an agent, `v` a version, `s` a session, …), so a statement
// names its row by that alias (`from upd a`). `row_to_json` of a one-row select rather than
// `json_build_object`: the same document without the spaces around each colon, and cheaper to
// build (docs/performance.md). A jsonb column goes in as jsonb writes it (a space after each `:`
// and `,` inside it): rewriting it compact would take a regular expression per value
// (docs/decisions.md). Functions, not constants, so a bundle keeps only the ones it uses.

/** A timestamp as the API writes it (`2026-11-21T10:00:00.000Z`): Postgres's own text form is not ISO 8601. */
export const isoTime = (expr: Sql) =>
  sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** What a version configures: the fields the diff compares (contract VERSION_CONFIGURATION_FIELDS), of `v`. */
const configuration = () => sql`v.theme_id as "themeId",
    v.incentive_type as "incentiveType",
    v.incentive_amount as "incentiveAmount",
    v.incentive_currency_code as "incentiveCurrencyCode",
    v.max_participants as "maxParticipants",
    v.length as length,
    v.languages as languages,
    v.input_mode as "inputMode",
    v.knowledge_base_id as "knowledgeBaseId",
    v.follow_up as "followUp",
    v.limit_to_knowledge_base as "limitToKnowledgeBase",
    v.timezone as timezone,
    v.authentication as authentication,
    v.system_prompt as "systemPrompt",
    v.agent_flow_id as "agentFlowId",
    v.config as config`;

/** The agent version `v`: an agent's `version`, and the versions' answers. */
export const versionJson = () => sql`(select row_to_json(j) from (select
    v.id as id,
    ${isoTime(sql`v.created_at`)} as "createdAt",
    ${isoTime(sql`v.updated_at`)} as "updatedAt",
    v.created_by as "createdBy",
    v.updated_by as "updatedBy",
    v.agent_id as "agentId",
    v.version as version,
    v.workspace_id as "workspaceId",
    v.source_agent_version_id as "sourceAgentVersionId",
    ${configuration()}
  ) j)`;

/** The configuration of the version `v` alone, as the diff compares two. */
export const configurationJson = () => sql`(select row_to_json(j) from (select
    ${configuration()}
  ) j)`;

/** The agent `a` with `version` (a version's JSON, or null) embedded. */
export const agentJson = (version: Sql) => sql`(select row_to_json(j) from (select
    a.id as id,
    ${isoTime(sql`a.created_at`)} as "createdAt",
    ${isoTime(sql`a.updated_at`)} as "updatedAt",
    a.created_by as "createdBy",
    a.updated_by as "updatedBy",
    a.workspace_id as "workspaceId",
    a.published_version_id as "publishedVersionId",
    a.name as name,
    a.description as description,
    a.slug as slug,
    a.status as status,
    a.source_template_id as "sourceTemplateId",
    ${isoTime(sql`a.archived_at`)} as "archivedAt",
    a.archived_by as "archivedBy",
    ${isoTime(sql`a.completed_at`)} as "completedAt",
    a.completed_by as "completedBy",
    ${isoTime(sql`a.published_at`)} as "publishedAt",
    a.published_by as "publishedBy",
    ${version} as version
  ) j)`;

/** The latest version (highest number) of the agent `a`, as JSON. */
export const latestVersionJson = () => sql`(select ${versionJson()}
    from agent_versions v where v.agent_id = a.id
    order by v.version desc limit 1)`;

/**
 * The conversation `c`, read by `from` inside the one subquery: no row there makes the whole
 * `null`, with one subquery to plan and run rather than two.
 */
const conversationJson = (from: Sql) => sql`(select row_to_json(j) from (select
    c.id as id,
    ${isoTime(sql`c.created_at`)} as "createdAt",
    ${isoTime(sql`c.updated_at`)} as "updatedAt",
    c.workspace_id as "workspaceId",
    c.person_id as "personId",
    c.name as name,
    c.is_demo as "isDemo",
    ${isoTime(sql`c.last_viewed_at`)} as "lastViewedAt",
    c.last_viewed_by as "lastViewedBy",
    ${isoTime(sql`c.last_session_ended_at`)} as "lastSessionEndedAt",
    ${isoTime(sql`c.archived_at`)} as "archivedAt",
    c.archived_by as "archivedBy"
  ${from}) j)`;

/** The person `p`, read by `from` (as the conversation). */
const personJson = (from: Sql) => sql`(select row_to_json(j) from (select
    p.id as id,
    ${isoTime(sql`p.created_at`)} as "createdAt",
    ${isoTime(sql`p.updated_at`)} as "updatedAt",
    p.workspace_id as "workspaceId",
    p.properties as properties,
    ${isoTime(sql`p.first_seen_at`)} as "firstSeenAt",
    ${isoTime(sql`p.last_seen_at`)} as "lastSeenAt",
    ${isoTime(sql`p.identified_at`)} as "identifiedAt",
    ${isoTime(sql`p.deleted_at`)} as "deletedAt",
    p.email as email,
    p.phone as phone,
    p.root_person_id as "rootPersonId",
    p.merged_by as "mergedBy",
    ${isoTime(sql`p.merged_at`)} as "mergedAt",
    p.merge_meta as "mergeMeta"
  ${from}) j)`;

/** The ledger entry `l`; `from`, when given, reads it inside the subquery (as the conversation). */
export const ledgerEntryJson = (from: Sql = empty) => sql`(select row_to_json(j) from (select
    l.id as id,
    ${isoTime(sql`l.created_at`)} as "createdAt",
    ${isoTime(sql`l.updated_at`)} as "updatedAt",
    l.created_by as "createdBy",
    l.updated_by as "updatedBy",
    l.workspace_id as "workspaceId",
    l.amount as amount,
    l.reason as reason,
    l.reason_details as "reasonDetails",
    l.redemption_code_id as "redemptionCodeId",
    l.agent_id as "agentId",
    l.session_id as "sessionId",
    l.idempotency_key as "idempotencyKey"
  ${from}) j)`;

/** The balance of workspace `w` from its row `b`, which a workspace that never booked lacks: zero. */
export const balanceJson = () => sql`(select row_to_json(j) from (select
    w.id as "workspaceId",
    coalesce(b.balance, 0) as balance,
    b.last_entry_id as "lastEntryId",
    ${isoTime(sql`b.last_entry_at`)} as "lastEntryAt",
    coalesce(b.low_balance_threshold, 0) as "lowBalanceThreshold"
  ) j)`;

/**
 * The session `s` with `agent` (the JSON of its agent and the version it ran on) embedded, and its
 * conversation, person and ledger entry: one scalar subquery each, one index probe, a fraction of a
 * join's planning time, and a missing ledger entry is simply `null`.
 */
export const sessionItemJson = (agent: Sql) => sql`(select row_to_json(j) from (select
    s.id as id,
    ${isoTime(sql`s.created_at`)} as "createdAt",
    ${isoTime(sql`s.updated_at`)} as "updatedAt",
    s.name as name,
    s.type as type,
    s.status as status,
    ${isoTime(sql`s.completed_at`)} as "completedAt",
    ${isoTime(sql`s.last_heartbeat_at`)} as "lastHeartbeatAt",
    ${isoTime(sql`s.started_at`)} as "startedAt",
    ${isoTime(sql`s.ended_at`)} as "endedAt",
    s.record_audio as "recordAudio",
    s.is_demo as "isDemo",
    s.agent_id as "agentId",
    s.agent_version_id as "agentVersionId",
    s.workspace_id as "workspaceId",
    s.person_id as "personId",
    s.conversation_id as "conversationId",
    s.completed_meta as "completedMeta",
    ${agent} as agent,
    ${conversationJson(sql`from conversations c where c.id = s.conversation_id`)} as conversation,
    ${personJson(sql`from persons p where p.id = s.person_id`)} as person,
    ${ledgerEntryJson(sql`from ledger_entries l where l.session_id = s.id`)} as ledger
  ) j)`;

/** The agent history entry `c`. */
export const agentChangeJson = () => sql`(select row_to_json(j) from (select
    c.id as id,
    ${isoTime(sql`c.created_at`)} as "createdAt",
    c.workspace_id as "workspaceId",
    c.agent_id as "agentId",
    c.agent_version_id as "agentVersionId",
    c.operation as operation,
    c.principal_id as "principalId",
    c.key_id as "keyId",
    c.etag_before as "etagBefore",
    c.etag_after as "etagAfter"
  ) j)`;
