import { createId } from '@paralleldrive/cuid2';
import { sql } from 'drizzle-orm';
import type { Agent } from '#functions/schemas/agent.ts';
import type { VersionConfig } from '#functions/schemas/config.ts';
import type { Database } from '../client.ts';
import { agents, agentVersions, themes } from '../schema/index.ts';
import { jsonOf } from './json.ts';

/** An agent with its latest version (highest number), as one JSON value. */
const agentJson = (agentAlias: string) =>
  jsonOf(agents, agentAlias, {
    version: sql`(select ${jsonOf(agentVersions, 'v')} from ${agentVersions} v
      where v.agent_id = ${sql.identifier(agentAlias)}.id order by v.version desc limit 1)`,
  });

/** One page of a workspace's agents, newest first; `limit + 1` rows so the caller knows if more follow. */
export async function pageAgents(
  db: Database,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<Agent[]> {
  // Late row lookup: page the ids on the index, then build JSON for just those rows.
  const rows = await db.execute(sql`
    with page as (
      select id, created_at from ${agents}
      where workspace_id = ${workspaceId}
      order by created_at desc, id desc
      limit ${page.limit + 1} offset ${page.offset}
    )
    select ${agentJson('a')} as item
    from page join ${agents} a on a.id = page.id
    order by page.created_at desc, page.id desc`);
  return rowsOf<{ item: Agent }>(rows).map((r) => r.item);
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

/**
 * Inserts the agent and its version 1 and returns the API representation, in one statement (so
 * one round trip and atomic without an explicit transaction). A slug collision surfaces as the
 * unique violation `agents_workspace_slug`.
 */
export async function insertAgent(db: Database, input: NewAgent): Promise<Agent> {
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
    select ${jsonOf(agents, 'new_agent', { version: jsonOf(agentVersions, 'new_version') })} as item
    from new_agent, new_version`);
  const [row] = rowsOf<{ item: Agent }>(rows);
  if (!row) throw new Error('insert returned no row');
  return row.item;
}

/** postgres.js returns the rows array, PGlite `{ rows }`: one shape for callers. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
