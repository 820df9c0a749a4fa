import { createId } from '@paralleldrive/cuid2';
import { inArray, type SQL, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Agent } from '#contract/schemas/agent.ts';
import type { VersionConfig } from '#contract/schemas/config.ts';
import type { Database } from '../client.ts';
import { constraintName, sqlState } from '../errors.ts';
import { agents, agentVersions, themes } from '../schema/index.ts';
import { type JsonText, jsonOf, rendered } from './json.ts';
import { allOf, type ListWindow, pageItems } from './list-window.ts';
import { AGENT_FIELDS, AGENT_VERSION_FIELDS } from './projections.ts';
import { rowsOf } from './rows.ts';

/** An agent with its latest version (highest number), as one JSON value. */
const AGENT_JSON = rendered(
  jsonOf(agents, 'a', AGENT_FIELDS, {
    version: sql`(select ${jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS)} from ${agentVersions} v
      where v.agent_id = a.id order by v.version desc limit 1)`,
  }),
);

/** The agent and version a create statement inserted (its CTEs), the same shape as AGENT_JSON. */
const NEW_AGENT_JSON = rendered(
  jsonOf(agents, 'new_agent', AGENT_FIELDS, {
    version: jsonOf(agentVersions, 'new_version', AGENT_VERSION_FIELDS),
  }),
);

export interface AgentFilters {
  status?: (typeof agents.status.enumValues)[number][];
  slug?: string;
  /** Case-insensitive substring of the name. */
  q?: string;
}

/** `%`, `_` and `\` are LIKE wildcards: match them literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

// A workspace holds few agents: its slice of the list index bounds every filter's scan.
function matching(workspaceId: string, f: AgentFilters): SQL[] {
  return [
    sql`${agents.workspaceId} = ${workspaceId}`,
    f.status && inArray(agents.status, f.status),
    f.slug === undefined ? undefined : sql`${agents.slug} = ${f.slug}`,
    f.q === undefined ? undefined : sql`${agents.name} ilike ${`%${likeLiteral(f.q)}%`}`,
  ].filter((c): c is SQL => c !== undefined);
}

/** One page of a workspace's agents as JSON text; `limit + 1` rows so the caller knows if more follow. */
export function pageAgentsJson(
  db: Database,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<JsonText<Agent>[]> {
  return pageItems<Agent>(db, agents, 'a', AGENT_JSON, matching(workspaceId, filters), window);
}

/** The same page parsed, for callers that want objects (the seeders' checks, tests). */
export async function pageAgents(
  db: Database,
  workspaceId: string,
  window: ListWindow,
  filters: AgentFilters = {},
): Promise<Agent[]> {
  return (await pageAgentsJson(db, workspaceId, window, filters)).map((item) => JSON.parse(item));
}

/** How many agents match, for `includeTotal`. */
export async function countAgents(db: Database, workspaceId: string, filters: AgentFilters): Promise<number> {
  const rows = await db.execute(
    sql`select count(*)::int as n from ${agents} where ${allOf(matching(workspaceId, filters))}`,
  );
  return rowsOf<{ n: number }>(rows)[0]?.n ?? 0;
}

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
export async function createAgent(db: Database, agent: NewAgent): Promise<Agent> {
  for (let attempt = 1; ; attempt++) {
    try {
      // Inside a transaction a failed statement poisons it: give each attempt its own savepoint.
      return db instanceof PgTransaction
        ? await db.transaction((savepoint) => insertAgent(savepoint, agent))
        : await insertAgent(db, agent);
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
 * unique violation `agents_workspace_slug`.
 */
async function insertAgent(db: Pick<Database, 'execute'>, input: NewAgent): Promise<Agent> {
  const agentId = createId();
  const { workspaceId, principalId: by } = input;
  const slug =
    'given' in input.slug
      ? sql`${input.slug.given}::varchar`
      : sql`(select case when not exists (select 1 from ${agents} where workspace_id = ${workspaceId} and slug = b.base)
            then b.base
            else b.base || '-' || (select coalesce(max(substring(slug from length(b.base) + 2)::int), 1) + 1
              from ${agents} where workspace_id = ${workspaceId} and slug ~ ('^' || b.base || '-[0-9]{1,9}$'))
            end from (select ${input.slug.derivedFrom}::varchar as base) b)`;
  const v = input.version;
  const rows = await db.execute(sql`
    with new_agent as (
      insert into ${agents} (id, workspace_id, name, description, slug, created_by, updated_by)
      values (${agentId}, ${workspaceId}, ${input.name}, ${input.description}, ${slug}, ${by}, ${by})
      returning *
    ), new_version as (
      insert into ${agentVersions} (id, agent_id, version, workspace_id, theme_id, config, system_prompt,
        knowledge_base_id, input_mode, follow_up, created_by, updated_by)
      values (${createId()}, ${agentId}, 1, ${workspaceId},
        (select id from ${themes} where workspace_id = ${workspaceId} and is_default),
        ${v.config === null ? null : JSON.stringify(v.config)}::jsonb, ${v.systemPrompt}, ${v.knowledgeBaseId},
        ${`{${v.inputMode.join(',')}}`}::input_mode[], ${v.followUp}, ${by}, ${by})
      returning *
    )
    select ${NEW_AGENT_JSON} as item
    from new_agent, new_version`);
  const [row] = rowsOf<{ item: Agent }>(rows);
  if (!row) throw new Error('insert returned no row');
  return row.item;
}

export { rowsOf } from './rows.ts';
