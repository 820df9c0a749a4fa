import sql, { type Sql } from 'sql-template-tag';
import type { Agent } from '#contract/schemas/agent.ts';
import type { VersionConfig } from '#contract/schemas/config.ts';
import type { SqlRunner } from '../database.ts';
import { constraintName, sqlState } from '../errors.ts';
import { agentEtagSql } from './agents.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { eventInsert } from './events.ts';
import { idMaker } from './ids.ts';
import type { JsonText } from './json-text.ts';
import { agentJson, versionJson } from './projections.ts';

// Apart from the lists: only the functions that write make ids, so only their bundles carry cuid2.

/** The calling key guards the create and is recorded with the principal in the agent's history. */
export interface NewAgent extends CallingKey {
  principalId: string;
  name: string;
  description: string | null;
  /** Explicit slug, or `{ derivedFrom }` to take the first free `base`, `base-2`, `base-3`, … */
  slug: { given: string } | { derivedFrom: string };
  version: {
    config: VersionConfig | null;
    systemPrompt: string | null;
    knowledgeBaseId: string | null;
    inputMode: string[];
    followUp: boolean;
  };
}

/** The created agent: its id, its ETag, and its answer as GET /agents/{agentId} writes it. */
export interface CreatedAgent {
  id: string;
  etag: string;
  item: JsonText<Agent>;
}

/** The given slug is another agent's in this workspace. */
export class SlugTaken extends Error {
  constructor(readonly slug: string) {
    super(`slug "${slug}" is taken`);
  }
}

/** A derived slug lost the race to concurrent creates of the same name this many times. */
export class SlugsExhausted extends Error {}

// The unique constraint's name (db/schema/agents.ts).
const SLUG_TAKEN = 'agents_workspace_slug';
// Each round of a race has one winner, so this many rounds serve that many concurrent same-name creates.
const DERIVED_SLUG_ATTEMPTS = 25;

/**
 * Creates the agent and its version 1. A given slug that is taken throws `SlugTaken`; a derived one
 * that lost a race with a concurrent create of the same name is derived again (the next suffix is
 * free by then), up to `SlugsExhausted`.
 */
export async function createAgent(runner: SqlRunner, agent: NewAgent): Promise<CreatedAgent> {
  for (let attempt = 1; ; attempt++) {
    try {
      // Inside a transaction a failed statement poisons it: give each attempt its own savepoint.
      return runner.inTransaction
        ? await runner.transaction((savepoint) => insertAgent(savepoint, agent))
        : await insertAgent(runner, agent);
    } catch (error) {
      if (sqlState(error) !== '23505' || constraintName(error) !== SLUG_TAKEN) throw error;
      if ('given' in agent.slug) throw new SlugTaken(agent.slug.given);
      if (attempt >= DERIVED_SLUG_ATTEMPTS) throw new SlugsExhausted('no free slug after retries');
    }
  }
}

/**
 * Inserts the agent, its version 1, the first entry of its history and its `agent.created` event
 * (the outbox), and returns the API representation, in one statement (so one round trip and atomic
 * without an explicit transaction), which fails, keeping nothing, when the calling key is no longer
 * live (`keyIsLive`). A slug collision surfaces as the
 * unique violation `agents_workspace_slug`. The answer is built by the reads' own projection
 * (projections.ts) from the inserted rows.
 */
async function insertAgent(runner: SqlRunner, input: NewAgent): Promise<CreatedAgent> {
  const createId = await idMaker();
  const agentId = createId();
  const versionId = createId();
  const { workspaceId, principalId: by } = input;
  const slug =
    'given' in input.slug
      ? sql`${input.slug.given}::varchar`
      : derivedSlug(workspaceId, input.slug.derivedFrom);
  const v = input.version;
  const rows = await runner.rows<CreatedAgent>(sql`
    with new_agent as (
      insert into agents (id, workspace_id, name, description, slug, created_by, updated_by)
      values (${agentId}, ${workspaceId}, ${input.name}, ${input.description}, ${slug}, ${by}, ${by})
      returning *
    ), new_version as (
      insert into agent_versions (id, agent_id, version, workspace_id, theme_id, config,
        system_prompt, knowledge_base_id, input_mode, follow_up, created_by, updated_by)
      values (${versionId}, ${agentId}, 1, ${workspaceId},
        (select id from themes where workspace_id = ${workspaceId} and is_default),
        ${v.config === null ? null : JSON.stringify(v.config)}::jsonb, ${v.systemPrompt}, ${v.knowledgeBaseId},
        ${`{${v.inputMode.join(',')}}`}::input_mode[], ${v.followUp}, ${by}, ${by})
      returning *
    ), new_change as (
      insert into agent_changes (id, created_at, workspace_id, agent_id, agent_version_id,
        operation, principal_id, key_id, etag_before, etag_after)
      select ${createId()}, a.updated_at, ${workspaceId}, a.id, new_version.id,
        'create-agent'::agent_change_operation, ${by}, ${input.keyId}, null, ${agentEtagSql()}
      from new_agent a, new_version
    ), created as (${eventInsert(
      'agent.created',
      sql`select workspace_id, jsonb_build_object('agentId', id, 'name', name,
        'slug', slug, 'versionId', ${versionId}::varchar) as data from new_agent`,
    )})
    select a.id, ${agentEtagSql()} as etag, ${agentJson(versionJson())}::text as item
    from new_agent a, new_version v
    where ${keyIsLive(input.keyId)}`);
  const [row] = rows;
  if (!row) throw new Error('insert returned no row');
  return row;
}

/**
 * The first free slug of `base`, `base-2`, `base-3`, … in the workspace, as one expression: the
 * smallest `n + 1` not taken, where `n` is 1 or an existing suffix. Some `n + 1` is always free (the
 * largest suffix's), and the smallest is at most the number of the base's slugs + 2, so whatever
 * slugs exist (`x-999999999` included) it ends, and `base` (at most AGENT_SLUG_MAX - 15 characters,
 * functions/agents/slug.ts) with its suffix stays within the limit. Suffixes of more than 10
 * digits are never the smallest free one, so they are left out rather than cast.
 */
function derivedSlug(workspaceId: string, base: string) {
  const taken = (candidate: Sql) =>
    sql`exists (select 1 from agents where workspace_id = ${workspaceId} and slug = ${candidate})`;
  return sql`(
      select case when not ${taken(sql`b.base`)} then b.base else b.base || '-' || (
        select min(n.k + 1)
        from (
          select 1::bigint as k
          union all
          select substring(slug from length(b.base) + 2)::bigint from agents
          where workspace_id = ${workspaceId} and left(slug, length(b.base) + 1) = b.base || '-'
            and substring(slug from length(b.base) + 2) ~ '^[1-9][0-9]{0,9}$'
        ) n
        where not ${taken(sql`b.base || '-' || (n.k + 1)`)}
      ) end
      from (select ${base}::varchar as base) b
    )`;
}
