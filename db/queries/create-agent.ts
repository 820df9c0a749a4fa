import { createId } from '@paralleldrive/cuid2';
import sql from 'sql-template-tag';
import type { Agent } from '#contract/schemas/agent.ts';
import type { VersionConfig } from '#contract/schemas/config.ts';
import type { SqlRunner } from '../database.ts';
import { constraintName, sqlState } from '../errors.ts';
import { AGENT_COLUMNS, AGENT_VERSION_COLUMNS } from './items.generated.ts';
import { fromRowJson } from './row-json.ts';

// Apart from the lists: only the create function makes ids, so only its bundle carries cuid2.

export interface NewAgent {
  workspaceId: string;
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

/** The given slug is another agent's in this workspace. */
export class SlugTaken extends Error {
  constructor(readonly slug: string) {
    super(`slug "${slug}" is taken`);
  }
}

/** A derived slug lost the race to concurrent creates of the same name this many times. */
export class SlugsExhausted extends Error {}

const SLUG_TAKEN = 'agents_workspace_slug';
// Each round of a race has one winner, so this many rounds serve that many concurrent same-name creates.
const DERIVED_SLUG_ATTEMPTS = 25;

/**
 * Creates the agent and its version 1. A given slug that is taken throws `SlugTaken`; a derived one
 * that lost a race with a concurrent create of the same name is derived again (the next suffix is
 * free by then), up to `SlugsExhausted`.
 */
export async function createAgent(runner: SqlRunner, agent: NewAgent): Promise<Agent> {
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
 * Inserts the agent and its version 1 and returns the API representation, in one statement (so
 * one round trip and atomic without an explicit transaction). A slug collision surfaces as the
 * unique violation `agents_workspace_slug`. Unlike a list's items, the answer is shaped here from
 * the inserted rows: written in the statement, its ~45 fields cost Postgres ~0.2 ms more per create
 * (a fifth of its CPU for one), which the database pays for every create while the functions scale
 * out (docs/performance.md). The field lists are the lists' own (AGENT_COLUMNS, generated).
 */
async function insertAgent(runner: SqlRunner, input: NewAgent): Promise<Agent> {
  const agentId = createId();
  const { workspaceId, principalId: by } = input;
  const slug =
    'given' in input.slug
      ? sql`${input.slug.given}::varchar`
      : sql`(select case when not exists (select 1 from agents where workspace_id = ${workspaceId} and slug = b.base)
            then b.base
            else b.base || '-' || (select coalesce(max(substring(slug from length(b.base) + 2)::int), 1) + 1
              from agents where workspace_id = ${workspaceId} and slug ~ ('^' || b.base || '-[0-9]{1,9}$'))
            end from (select ${input.slug.derivedFrom}::varchar as base) b)`;
  const v = input.version;
  const rows = await runner.rows<{ agent: string; version: string }>(sql`
    with new_agent as (
      insert into agents (id, workspace_id, name, description, slug, created_by, updated_by)
      values (${agentId}, ${workspaceId}, ${input.name}, ${input.description}, ${slug}, ${by}, ${by})
      returning *
    ), new_version as (
      insert into agent_versions (id, agent_id, version, workspace_id, theme_id, config, system_prompt,
        knowledge_base_id, input_mode, follow_up, created_by, updated_by)
      values (${createId()}, ${agentId}, 1, ${workspaceId},
        (select id from themes where workspace_id = ${workspaceId} and is_default),
        ${v.config === null ? null : JSON.stringify(v.config)}::jsonb, ${v.systemPrompt}, ${v.knowledgeBaseId},
        ${`{${v.inputMode.join(',')}}`}::input_mode[], ${v.followUp}, ${by}, ${by})
      returning *
    )
    select row_to_json(new_agent)::text as agent, row_to_json(new_version)::text as version
    from new_agent, new_version`);
  const [row] = rows;
  if (!row) throw new Error('insert returned no row');
  const agent = fromRowJson(JSON.parse(row.agent), AGENT_COLUMNS);
  return { ...agent, version: fromRowJson(JSON.parse(row.version), AGENT_VERSION_COLUMNS) } as Agent;
}
