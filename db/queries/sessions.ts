import { sql } from 'drizzle-orm';
import type { Session } from '#functions/schemas/session.ts';
import type { Database } from '../client.ts';
import { agents, agentVersions, conversations, ledgerEntries, persons, sessions } from '../schema/index.ts';
import { rowsOf } from './agents.ts';
import { jsonOf, jsonOrNull } from './json.ts';

/**
 * One page of a workspace's sessions, newest first, each with its agent (and the version the
 * session ran on), conversation, person and ledger entry: one statement, `limit + 1` rows.
 */
export async function pageSessions(
  db: Database,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<Session[]> {
  // Late row lookup: page the ids on (workspace_id, created_at, id), then join for those rows only.
  const rows = await db.execute(sql`
    with page as (
      select id, created_at from ${sessions}
      where workspace_id = ${workspaceId}
      order by created_at desc, id desc
      limit ${page.limit + 1} offset ${page.offset}
    )
    select ${jsonOf(sessions, 's', {
      agent: jsonOf(agents, 'a', { version: jsonOf(agentVersions, 'v') }),
      conversation: jsonOf(conversations, 'c'),
      person: jsonOf(persons, 'p'),
      ledger: jsonOrNull(ledgerEntries, 'l'),
    })} as item
    from page
    join ${sessions} s on s.id = page.id
    join ${agents} a on a.id = s.agent_id
    join ${agentVersions} v on v.id = s.agent_version_id
    join ${conversations} c on c.id = s.conversation_id
    join ${persons} p on p.id = s.person_id
    left join ${ledgerEntries} l on l.session_id = s.id
    order by page.created_at desc, page.id desc`);
  return rowsOf<{ item: Session }>(rows).map((r) => r.item);
}
