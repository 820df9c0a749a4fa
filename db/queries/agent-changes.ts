import sql, { join, type Sql } from 'sql-template-tag';
import type { agentChangeOperation } from '#contract/enums.ts';
import type { Agent, AgentVersion } from '#contract/schemas/agent.ts';
import type { VersionConfig } from '#contract/schemas/config.ts';
import type { SqlRunner } from '../database.ts';
import { constraintName, sqlState } from '../errors.ts';
import { agentEtagSql } from './agents.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { SlugTaken } from './create-agent.ts';
import { type EventType, eventInsert } from './events.ts';
import { idMaker } from './ids.ts';
import type { JsonText } from './json-text.ts';
import { agentJson, isoTime, latestVersionJson, versionJson } from './projections.ts';

/** Who changes which agent (the calling key guards the change), and on what condition. */
export interface ChangeOf extends CallingKey {
  agentId: string;
  principalId: string;
  /** `If-Match`'s strong tags; undefined when any current ETag will do (`*`, or none sent where optional). */
  ifMatch: readonly string[] | undefined;
}

export type Operation = (typeof agentChangeOperation)[number];

/**
 * What a change came to. `missing`: the workspace holds no such agent. `stale`: `If-Match` named
 * none of its ETag. `refused`: its status forbids the change. `unknownVersion`: the version named
 * is not one of the agent's. `unchanged`: nothing to do (archiving an archived agent, a PATCH
 * naming the values the agent has).
 */
export type ChangeOutcome<T> =
  | { kind: 'missing' }
  | { kind: 'stale' }
  | { kind: 'refused'; status: Agent['status'] }
  | { kind: 'unknownVersion' }
  | { kind: 'unchanged' | 'changed'; answer: JsonText<T>; etag: string };

// The unique index on a version's number (db/schema/agents.ts): lost to a concurrent new version.
const VERSION_TAKEN = 'agent_versions_agent_version';
const SLUG_TAKEN = 'agents_workspace_slug';
// Each round of a race of `If-Match: *` new versions has one winner.
const VERSION_ATTEMPTS = 10;

/** Changes the configuration (new versions, publish, PATCH) only of an agent in these states. */
const EDITABLE = sql`cur.status in ('DRAFT', 'PUBLISHED')`;

/** What one statement of a change does besides moving `updated_at` and recording it. */
interface ChangeParts {
  operation: Operation;
  /** Whether the agent's current row (`cur`) allows the change; when not, `noop` says it is already done. */
  allowed: Sql;
  noop?: boolean;
  /**
   * Whether the change would change the current row `cur` at all; when not, nothing is written (no
   * `updated_at`, no history, no event) and the answer is the agent as it is (`unchanged`).
   */
  changes?: Sql;
  /** The CTE `target` selecting the version the change is about (at most one row); none: no version. */
  target?: Sql;
  /** `set` assignments on the agent row `a` besides `updated_at` and `updated_by`. */
  set: Sql[];
  /** The CTE `nv` after `upd`: the new version, which history and answer read; none: one row of null. */
  newVersion?: Sql;
  /** The version the history records, an expression over the changed agent `a` (and `nv`). */
  recordVersion: Sql;
  /** The answer's JSON, an expression over the agent `a` (changed, or as it is) and `nv`. */
  answer: Sql;
  /**
   * The event the change writes to the outbox (only when it changed the agent), its `data` an
   * expression over the changed agent `u` and the agent before it, `cur`.
   */
  event?: { type: EventType; data: Sql };
}

/**
 * One change as one statement (atomic without a transaction, one round trip): lock the agent row
 * (`cur`, its current state even after waiting for a concurrent change), compare `If-Match` with
 * its ETag, check its status and the version named, update it (`updated_at` moves by at least a
 * millisecond, so two changes never share an ETag), and append the history entry with both ETags.
 * Every check reads the locked row, so a stale copy can never overwrite a newer one. A calling key
 * no longer live fails the statement first, whatever the agent (`keyIsLive`). The answer is built
 * by the projection the reads use (projections.ts), from the changed row or the row as it is.
 */
async function change<T>(runner: SqlRunner, of: ChangeOf, parts: ChangeParts): Promise<ChangeOutcome<T>> {
  const createId = await idMaker();
  const tags = of.ifMatch;
  const matched = !tags ? sql`true` : tags.length === 0 ? sql`false` : sql`e.etag in (${join(tags)})`;
  const set = [
    sql`updated_at = greatest(now(), a.updated_at + interval '1 millisecond')`,
    sql`updated_by = ${of.principalId}`,
    ...parts.set,
  ];
  const announced = parts.event
    ? eventInsert(parts.event.type, sql`select u.workspace_id, ${parts.event.data} as data from upd u, cur`)
    : sql`select null where false`;
  const rows = await runner.rows<{
    matched: boolean;
    allowed: boolean;
    found: boolean;
    status: Agent['status'];
    changed: boolean;
    answer: string | null;
    etag: string;
  }>(sql`
    with cur as (
      select a.* from agents a
      where a.id = ${of.agentId} and a.workspace_id = ${of.workspaceId}
      for update
    ), target as (${parts.target ?? sql`select null::varchar as id`}),
    ok as (
      select cur.id, e.etag, ${matched} as matched, ${parts.allowed} as allowed,
        exists (select 1 from target) as found, ${parts.changes ?? sql`true`} as changes
      from cur, (select ${agentEtagSql()} as etag from cur a) e
    ), upd as (
      update agents a set ${join(set, ', ')}
      from ok where a.id = ok.id and ok.matched and ok.allowed and ok.found and ok.changes
      returning a.*
    ), nv as (${parts.newVersion ?? sql`select null::varchar as id`}
    ), recorded as (
      insert into agent_changes (id, created_at, workspace_id, agent_id, agent_version_id,
        operation, principal_id, key_id, etag_before, etag_after)
      select ${createId()}, a.updated_at, a.workspace_id, a.id, ${parts.recordVersion},
        ${parts.operation}::agent_change_operation, ${of.principalId}, ${of.keyId}, ok.etag, ${agentEtagSql()}
      from ok, upd a, nv
    ), announced as (${announced})
    select ok.matched, ok.allowed, ok.found, cur.status as status, exists (select 1 from upd) as changed,
      (select ${parts.answer}
        from (select * from upd union all select * from cur where not exists (select 1 from upd)) a)::text as answer,
      coalesce((select ${agentEtagSql()} from upd a), ok.etag) as etag
    from cur cross join ok
    where ${keyIsLive(of.keyId)}`);
  const [row] = rows;
  if (!row) return { kind: 'missing' };
  if (!row.matched) return { kind: 'stale' };
  if (!row.allowed && !parts.noop) return { kind: 'refused', status: row.status };
  if (!row.found) return { kind: 'unknownVersion' };
  return {
    kind: row.changed ? 'changed' : 'unchanged',
    answer: row.answer as JsonText<T>,
    etag: row.etag,
  };
}

/** The agent with its latest version: the agent changes' answer, as GET /agents/{agentId} answers. */
const AGENT_ANSWER = agentJson(latestVersionJson());

/** A version of this agent, by id: the `target` of a change about one. */
const versionOfAgent = (of: ChangeOf, versionId: string) =>
  sql`select v.id from agent_versions v
      where v.id = ${versionId} and v.agent_id = ${of.agentId} and v.workspace_id = ${of.workspaceId}`;

/**
 * An agent event's `data`: the changed agent `u`'s ids, name and slug, its status, and the members
 * of `more` (the times that status set); the whole agent is a GET away. agent.created's are
 * create-agent.ts's.
 */
const agentEventData = (more = sql`'{}'::jsonb`) =>
  sql`jsonb_build_object('agentId', u.id, 'name', u.name, 'slug', u.slug, 'status', u.status) || ${more}`;

/**
 * Publishes one of the agent's versions (an older one: a rollback); DRAFT or PUBLISHED agents only.
 * Each publish is an `agent.published` event, a rollback and a publish of the published version too.
 */
export function publishAgent(runner: SqlRunner, of: ChangeOf, versionId: string) {
  return change<Agent>(runner, of, {
    operation: 'publish-agent',
    allowed: EDITABLE,
    target: versionOfAgent(of, versionId),
    set: [
      sql`status = 'PUBLISHED'`,
      sql`published_version_id = (select id from target)`,
      sql`published_at = greatest(now(), a.updated_at + interval '1 millisecond')`,
      sql`published_by = ${of.principalId}`,
    ],
    recordVersion: sql`a.published_version_id`,
    answer: AGENT_ANSWER,
    event: {
      type: 'agent.published',
      data: agentEventData(
        sql`jsonb_build_object('versionId', u.published_version_id,
          'previousVersionId', cur.published_version_id, 'publishedAt', ${isoTime(sql`u.published_at`)})`,
      ),
    },
  });
}

/**
 * Archives the agent (from any other status), an `agent.archived` event; an archived one is left as
 * it is (`unchanged`, no event).
 */
export function archiveAgent(runner: SqlRunner, of: ChangeOf) {
  return change<Agent>(runner, of, {
    operation: 'archive-agent',
    allowed: sql`cur.status <> 'ARCHIVED'`,
    noop: true,
    set: [
      sql`status = 'ARCHIVED'`,
      sql`archived_at = greatest(now(), a.updated_at + interval '1 millisecond')`,
      sql`archived_by = ${of.principalId}`,
    ],
    recordVersion: sql`null`,
    answer: AGENT_ANSWER,
    event: {
      type: 'agent.archived',
      data: agentEventData(sql`jsonb_build_object('archivedAt', ${isoTime(sql`u.archived_at`)})`),
    },
  });
}

/**
 * Unarchives the agent: back to COMPLETED when it was completed, else PUBLISHED when a version is
 * published, else DRAFT; `archivedAt`/`By` cleared; an `agent.unarchived` event (its `status` the
 * one restored). An agent that is not archived is left as it is (no event).
 */
export function unarchiveAgent(runner: SqlRunner, of: ChangeOf) {
  return change<Agent>(runner, of, {
    operation: 'unarchive-agent',
    allowed: sql`cur.status = 'ARCHIVED'`,
    noop: true,
    set: [
      sql`status = (case when a.completed_at is not null then 'COMPLETED'
          when a.published_version_id is not null then 'PUBLISHED' else 'DRAFT' end)::agent_status`,
      sql`archived_at = null`,
      sql`archived_by = null`,
    ],
    recordVersion: sql`null`,
    answer: AGENT_ANSWER,
    event: { type: 'agent.unarchived', data: agentEventData() },
  });
}

/** The agent's own fields a PATCH may change; a member left out is kept. */
export interface AgentEdit {
  name?: string;
  description?: string | null;
  slug?: string;
}

/**
 * Changes the agent's own fields (DRAFT or PUBLISHED agents); a slug another agent holds throws
 * `SlugTaken`. An edit naming only the values the agent has writes nothing (`unchanged`).
 */
export async function updateAgent(runner: SqlRunner, of: ChangeOf, edit: AgentEdit) {
  // Each field with whether the edit names it: one statement text, whichever it names.
  const name = sql`${edit.name !== undefined}::boolean`;
  const description = sql`${edit.description !== undefined}::boolean`;
  const slug = sql`${edit.slug !== undefined}::boolean`;
  const [newName, newDescription, newSlug] = [
    sql`${edit.name ?? null}::varchar`,
    sql`${edit.description ?? null}::varchar`,
    sql`${edit.slug ?? null}::varchar`,
  ];
  try {
    return await inSavepoint(runner, (r) =>
      change<Agent>(r, of, {
        operation: 'update-agent',
        allowed: EDITABLE,
        set: [
          sql`name = case when ${name} then ${newName} else a.name end`,
          sql`description = case when ${description} then ${newDescription} else a.description end`,
          sql`slug = case when ${slug} then ${newSlug} else a.slug end`,
        ],
        changes: sql`((${name} and cur.name is distinct from ${newName})
          or (${description} and cur.description is distinct from ${newDescription})
          or (${slug} and cur.slug is distinct from ${newSlug}))`,
        recordVersion: sql`null`,
        answer: AGENT_ANSWER,
      }),
    );
  } catch (error) {
    if (sqlState(error) === '23505' && constraintName(error) === SLUG_TAKEN && edit.slug !== undefined)
      throw new SlugTaken(edit.slug);
    throw error;
  }
}

/** A new version's fields; a member left out is copied from the version it is built from. */
export interface VersionEdit {
  /** The version to build from; omitted: the agent's latest. */
  sourceAgentVersionId?: string;
  config?: VersionConfig | null;
  systemPrompt?: string | null;
  knowledgeBaseId?: string | null;
  inputMode?: string[];
  followUp?: boolean;
}

/**
 * A new DRAFT version of a DRAFT or PUBLISHED agent, numbered after its highest, built from its
 * latest version (or `sourceAgentVersionId`, which must be one of its versions) with `edit`'s
 * members; the agent's `updated_at` moves, and the version's `created_at` is that same instant.
 * Two `If-Match: *` versions at once: the one that lost the number takes the next (a fresh statement).
 */
export async function createVersion(runner: SqlRunner, of: ChangeOf, edit: VersionEdit) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inSavepoint(runner, (r) => insertVersion(r, of, edit));
    } catch (error) {
      const lost = sqlState(error) === '23505' && constraintName(error) === VERSION_TAKEN;
      if (!lost || attempt >= VERSION_ATTEMPTS) throw error;
    }
  }
}

async function insertVersion(runner: SqlRunner, of: ChangeOf, edit: VersionEdit) {
  const createId = await idMaker();
  // Each member with whether the edit names it (else copied from the source version `src`).
  const given = (value: unknown) => sql`${value !== undefined}::boolean`;
  const config = edit.config === undefined ? null : edit.config && JSON.stringify(edit.config);
  const inputMode = edit.inputMode ? `{${edit.inputMode.join(',')}}` : null;
  return change<AgentVersion>(runner, of, {
    operation: 'create-version',
    allowed: EDITABLE,
    target: sql`select v.* from agent_versions v
        where v.agent_id = ${of.agentId} and v.workspace_id = ${of.workspaceId}
          and (${edit.sourceAgentVersionId ?? null}::varchar is null or v.id = ${edit.sourceAgentVersionId ?? null})
        order by v.version desc limit 1`,
    set: [],
    // What a new version cannot set (yet) is copied from the source as it is.
    newVersion: sql`
      insert into agent_versions (id, created_at, updated_at, created_by, updated_by, agent_id,
        version, workspace_id, source_agent_version_id, config, system_prompt, knowledge_base_id,
        input_mode, follow_up, theme_id, incentive_type, incentive_amount, incentive_currency_code,
        max_participants, length, languages, limit_to_knowledge_base, timezone, authentication, agent_flow_id)
      select ${createId()}, u.updated_at, u.updated_at, ${of.principalId}, ${of.principalId}, u.id,
        (select max(version) + 1 from agent_versions where agent_id = u.id), u.workspace_id, src.id,
        case when ${given(edit.config)} then ${config}::jsonb else src.config end,
        case when ${given(edit.systemPrompt)} then ${edit.systemPrompt ?? null}::text else src.system_prompt end,
        case when ${given(edit.knowledgeBaseId)} then ${edit.knowledgeBaseId ?? null}::varchar else src.knowledge_base_id end,
        case when ${given(edit.inputMode)} then ${inputMode}::input_mode[] else src.input_mode end,
        case when ${given(edit.followUp)} then ${edit.followUp ?? null}::boolean else src.follow_up end,
        src.theme_id, src.incentive_type, src.incentive_amount, src.incentive_currency_code,
        src.max_participants, src.length, src.languages, src.limit_to_knowledge_base, src.timezone,
        src.authentication, src.agent_flow_id
      from upd u, target src
      returning *`,
    recordVersion: sql`nv.id`,
    answer: sql`(select ${versionJson()} from nv v)`,
  });
}

/** `work` in a savepoint when already in a transaction (a failed statement would poison it), else as is. */
function inSavepoint<T>(runner: SqlRunner, work: (r: SqlRunner) => Promise<T>): Promise<T> {
  return runner.inTransaction ? runner.transaction(work) : work(runner);
}
