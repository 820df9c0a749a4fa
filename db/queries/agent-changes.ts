import sql, { join, raw, type Sql } from 'sql-template-tag';
import type { agentChangeOperation } from '#contract/enums.ts';
import type { Agent, AgentVersion } from '#contract/schemas/agent.ts';
import type { VersionConfig } from '#contract/schemas/config.ts';
import type { SqlRunner } from '../database.ts';
import { constraintName, sqlState } from '../errors.ts';
import { agentEtagSql } from './agents.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { SlugTaken } from './create-agent.ts';
import { type EventType, eventInsert, isoTime } from './events.ts';
import { idMaker } from './ids.ts';
import { AGENT_COLUMNS, AGENT_VERSION_COLUMNS } from './items.generated.ts';
import { agents as A, agentChanges as C, enums as E, agentVersions as V } from './names.generated.ts';
import { fromRowJson } from './row-json.ts';

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
  | { kind: 'unchanged' | 'changed'; answer: T; etag: string };

// The unique index on a version's number (db/schema/agents.ts): lost to a concurrent new version.
const VERSION_TAKEN = 'agent_versions_agent_version';
const SLUG_TAKEN = 'agents_workspace_slug';
// Each round of a race of `If-Match: *` new versions has one winner.
const VERSION_ATTEMPTS = 10;

/** Changes the configuration (new versions, publish, PATCH) only of an agent in these states. */
const EDITABLE = sql`cur.${A.status} in ('DRAFT', 'PUBLISHED')`;

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
  /** The CTE `nv` after `upd` (the changed agent `u`): the new version, which history and answer read. */
  newVersion?: Sql;
  /** The version the history records, an expression over `upd u` (and `nv`). */
  recordVersion: Sql;
  /** The answer's version JSON, or null. */
  version: Sql;
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
 * no longer live fails the statement first, whatever the agent (`keyIsLive`).
 */
async function change<T>(
  runner: SqlRunner,
  of: ChangeOf,
  parts: ChangeParts,
  shape: (agent: Agent, version: AgentVersion | null) => T,
): Promise<ChangeOutcome<T>> {
  const createId = await idMaker();
  const tags = of.ifMatch;
  const matched = !tags ? raw('true') : tags.length === 0 ? raw('false') : sql`cur.etag in (${join(tags)})`;
  const target = parts.target ?? sql`select null::varchar as ${V.id}`;
  const rows = await runner.rows<{
    matched: boolean;
    allowed: boolean;
    found: boolean;
    status: Agent['status'];
    changed: boolean;
    agent: string;
    etag: string;
    version: string | null;
  }>(sql`
    with cur as (
      select a.*, ${agentEtagSql('a')} as etag from ${A.$} a
      where a.${A.id} = ${of.agentId} and a.${A.workspaceId} = ${of.workspaceId}
      for update
    ), target as (${target}),
    ok as (
      select cur.${A.id}, cur.etag, ${matched} as matched, ${parts.allowed} as allowed,
        exists (select 1 from target) as found, ${parts.changes ?? raw('true')} as changes
      from cur
    ), upd as (
      update ${A.$} a set ${A.updatedAt} = greatest(now(), a.${A.updatedAt} + interval '1 millisecond'),
        ${A.updatedBy} = ${of.principalId}${parts.set.length > 0 ? sql`, ${join(parts.set, ', ')}` : raw('')}
      from ok where a.${A.id} = ok.${A.id} and ok.matched and ok.allowed and ok.found and ok.changes
      returning a.*
    )${parts.newVersion ? sql`, nv as (${parts.newVersion})` : raw('')}, recorded as (
      insert into ${C.$} (${C.id}, ${C.createdAt}, ${C.workspaceId}, ${C.agentId}, ${C.agentVersionId},
        ${C.operation}, ${C.principalId}, ${C.keyId}, ${C.etagBefore}, ${C.etagAfter})
      select ${createId()}, u.${A.updatedAt}, u.${A.workspaceId}, u.${A.id}, ${parts.recordVersion},
        ${parts.operation}::${E.agentChangeOperation}, ${of.principalId}, ${of.keyId}, ok.etag, ${agentEtagSql('u')}
      from ok, upd u${raw(parts.newVersion ? ', nv' : '')}
    )${
      parts.event
        ? sql`, announced as (${eventInsert(
            parts.event.type,
            sql`select u.${A.workspaceId} as workspace_id, ${parts.event.data} as data from upd u, cur`,
          )})`
        : raw('')
    }
    select ok.matched, ok.allowed, ok.found, cur.${A.status} as status, u.${A.id} is not null as changed,
      coalesce(row_to_json(u), row_to_json(cur))::text as agent,
      coalesce(${agentEtagSql('u')}, cur.etag) as etag,
      ${parts.version}::text as version
    from cur cross join ok left join upd u on true${raw(parts.newVersion ? ' left join nv on true' : '')}
    where ${keyIsLive(of.keyId)}`);
  const [row] = rows;
  if (!row) return { kind: 'missing' };
  if (!row.matched) return { kind: 'stale' };
  if (!row.allowed && !parts.noop) return { kind: 'refused', status: row.status };
  if (!row.found) return { kind: 'unknownVersion' };
  const agent = fromRowJson(JSON.parse(row.agent), AGENT_COLUMNS) as Agent;
  const version =
    row.version && (fromRowJson(JSON.parse(row.version), AGENT_VERSION_COLUMNS) as AgentVersion);
  return {
    kind: row.changed ? 'changed' : 'unchanged',
    answer: shape(agent, version || null),
    etag: row.etag,
  };
}

/** The agent's latest version as JSON (a scalar subquery over the agent `u`, else the locked `cur`). */
const latestVersion = sql`(select row_to_json(v) from ${V.$} v
      where v.${V.agentId} = cur.${A.id} order by v.${V.version} desc limit 1)`;
const withLatest = (agent: Agent, version: AgentVersion | null) => ({ ...agent, version }) as Agent;

/** A version of this agent, by id: the `target` of a change about one. */
const versionOfAgent = (of: ChangeOf, versionId: string) =>
  sql`select v.${V.id} from ${V.$} v
      where v.${V.id} = ${versionId} and v.${V.agentId} = ${of.agentId} and v.${V.workspaceId} = ${of.workspaceId}`;

/**
 * An agent event's `data`: the changed agent's ids, name and slug, its status, and what `more`
 * names (the times that status set); the whole agent is a GET away. agent.created's are
 * create-agent.ts's.
 */
const agentEventData = (...more: [string, Sql][]) =>
  sql`jsonb_build_object('agentId', u.${A.id}, 'name', u.${A.name}, 'slug', u.${A.slug}, 'status', u.${A.status}${
    more.length > 0 ? sql`, ${join(more.map(([key, value]) => sql`${key}::text, ${value}`))}` : raw('')
  })`;

/**
 * Publishes one of the agent's versions (an older one: a rollback); DRAFT or PUBLISHED agents only.
 * Each publish is an `agent.published` event, a rollback and a publish of the published version too.
 */
export function publishAgent(runner: SqlRunner, of: ChangeOf, versionId: string) {
  return change(
    runner,
    of,
    {
      operation: 'publish-agent',
      allowed: EDITABLE,
      target: versionOfAgent(of, versionId),
      set: [
        sql`${A.status} = 'PUBLISHED'`,
        sql`${A.publishedVersionId} = (select ${V.id} from target)`,
        sql`${A.publishedAt} = greatest(now(), a.${A.updatedAt} + interval '1 millisecond')`,
        sql`${A.publishedBy} = ${of.principalId}`,
      ],
      recordVersion: sql`u.${A.publishedVersionId}`,
      version: latestVersion,
      event: {
        type: 'agent.published',
        data: agentEventData(
          ['versionId', sql`u.${A.publishedVersionId}`],
          ['previousVersionId', sql`cur.${A.publishedVersionId}`],
          ['publishedAt', isoTime(sql`u.${A.publishedAt}`)],
        ),
      },
    },
    withLatest,
  );
}

/**
 * Archives the agent (from any other status), an `agent.archived` event; an archived one is left as
 * it is (`unchanged`, no event).
 */
export function archiveAgent(runner: SqlRunner, of: ChangeOf) {
  return change(
    runner,
    of,
    {
      operation: 'archive-agent',
      allowed: sql`cur.${A.status} <> 'ARCHIVED'`,
      noop: true,
      set: [
        sql`${A.status} = 'ARCHIVED'`,
        sql`${A.archivedAt} = greatest(now(), a.${A.updatedAt} + interval '1 millisecond')`,
        sql`${A.archivedBy} = ${of.principalId}`,
      ],
      recordVersion: raw('null'),
      version: latestVersion,
      event: {
        type: 'agent.archived',
        data: agentEventData(['archivedAt', isoTime(sql`u.${A.archivedAt}`)]),
      },
    },
    withLatest,
  );
}

/**
 * Unarchives the agent: back to COMPLETED when it was completed, else PUBLISHED when a version is
 * published, else DRAFT; `archivedAt`/`By` cleared; an `agent.unarchived` event (its `status` the
 * one restored). An agent that is not archived is left as it is (no event).
 */
export function unarchiveAgent(runner: SqlRunner, of: ChangeOf) {
  return change(
    runner,
    of,
    {
      operation: 'unarchive-agent',
      allowed: sql`cur.${A.status} = 'ARCHIVED'`,
      noop: true,
      set: [
        sql`${A.status} = (case when a.${A.completedAt} is not null then 'COMPLETED'
          when a.${A.publishedVersionId} is not null then 'PUBLISHED' else 'DRAFT' end)::${E.agentStatus}`,
        sql`${A.archivedAt} = null`,
        sql`${A.archivedBy} = null`,
      ],
      recordVersion: raw('null'),
      version: latestVersion,
      event: { type: 'agent.unarchived', data: agentEventData() },
    },
    withLatest,
  );
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
  const fields = [
    edit.name === undefined ? undefined : ([A.name, sql`${edit.name}::varchar`] as const),
    edit.description === undefined
      ? undefined
      : ([A.description, sql`${edit.description}::varchar`] as const),
    edit.slug === undefined ? undefined : ([A.slug, sql`${edit.slug}::varchar`] as const),
  ].filter((f) => f !== undefined);
  const set = fields.map(([column, value]) => sql`${column} = ${value}`);
  const changes = join(
    fields.map(([column, value]) => sql`cur.${column} is distinct from ${value}`),
    ' or ',
  );
  try {
    return await inSavepoint(runner, (r) =>
      change(
        r,
        of,
        {
          operation: 'update-agent',
          allowed: EDITABLE,
          set,
          changes: sql`(${changes})`,
          recordVersion: raw('null'),
          version: latestVersion,
        },
        withLatest,
      ),
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

// Copied from the source as they are: what a new version cannot set (yet).
const COPIED = [
  V.themeId,
  V.incentiveType,
  V.incentiveAmount,
  V.incentiveCurrencyCode,
  V.maxParticipants,
  V.length,
  V.languages,
  V.limitToKnowledgeBase,
  V.timezone,
  V.authentication,
  V.agentFlowId,
];

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
  const source = edit.sourceAgentVersionId;
  const value = (given: unknown, column: Sql, cast: Sql = raw('')) =>
    given === undefined ? sql`src.${column}` : sql`${given}${cast}`;
  const config = edit.config === undefined ? undefined : edit.config && JSON.stringify(edit.config);
  const inputMode = edit.inputMode && `{${edit.inputMode.join(',')}}`;
  const columns = [
    [V.config, value(config, V.config, raw('::jsonb'))],
    [V.systemPrompt, value(edit.systemPrompt, V.systemPrompt)],
    [V.knowledgeBaseId, value(edit.knowledgeBaseId, V.knowledgeBaseId)],
    [V.inputMode, value(inputMode, V.inputMode, sql`::${E.inputMode}[]`)],
    [V.followUp, value(edit.followUp, V.followUp)],
    ...COPIED.map((c) => [c, sql`src.${c}`]),
  ] as const;
  return change(
    runner,
    of,
    {
      operation: 'create-version',
      allowed: EDITABLE,
      target: sql`select v.* from ${V.$} v
        where v.${V.agentId} = ${of.agentId} and v.${V.workspaceId} = ${of.workspaceId}
          ${source === undefined ? raw('') : sql`and v.${V.id} = ${source}`}
        order by v.${V.version} desc limit 1`,
      set: [],
      newVersion: sql`
      insert into ${V.$} (${V.id}, ${V.createdAt}, ${V.updatedAt}, ${V.createdBy}, ${V.updatedBy}, ${V.agentId},
        ${V.version}, ${V.workspaceId}, ${V.sourceAgentVersionId}, ${join(columns.map(([c]) => c))})
      select ${createId()}, u.${A.updatedAt}, u.${A.updatedAt}, ${of.principalId}, ${of.principalId}, u.${A.id},
        (select max(${V.version}) + 1 from ${V.$} where ${V.agentId} = u.${A.id}), u.${A.workspaceId},
        src.${V.id}, ${join(columns.map(([, e]) => e))}
      from upd u, target src
      returning *`,
      recordVersion: sql`nv.${V.id}`,
      version: raw('row_to_json(nv)'),
    },
    (_agent, version) => version as AgentVersion,
  );
}

/** `work` in a savepoint when already in a transaction (a failed statement would poison it), else as is. */
function inSavepoint<T>(runner: SqlRunner, work: (r: SqlRunner) => Promise<T>): Promise<T> {
  return runner.inTransaction ? runner.transaction(work) : work(runner);
}
