import type postgres from 'postgres';
import { encodeCursor } from '#functions/http/cursor.ts';
import { listRequest } from '#functions/http/pagination.ts';

/**
 * The cursor the API hands out after `depth` sessions of a workspace, newest first, made with the
 * API's own functions: a keyset page as deep as the offset one, for comparison.
 */
export async function sessionsCursorAt(
  sql: postgres.Sql,
  workspaceId: string,
  depth: number,
): Promise<{ cursor: string; position: { createdAt: string; id: string } }> {
  const [position] = await sql<{ createdAt: string; id: string }[]>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt", id
    from sessions where workspace_id = ${workspaceId}
    order by created_at desc, id desc offset ${depth - 1} limit 1`;
  if (!position) throw new Error(`the workspace has fewer than ${depth} sessions`);
  const cursor = encodeCursor(
    position,
    listRequest({ limit: 25, order: 'desc' }, 'sessions', workspaceId).binding,
  );
  return { cursor, position: { createdAt: position.createdAt, id: position.id } };
}

/** The workspace's newest agent: the one `GET /agents/{agentId}` reads in the bench. */
export async function newestAgentId(sql: postgres.Sql, workspaceId: string): Promise<string> {
  const [agent] = await sql<{ id: string }[]>`
    select id from agents where workspace_id = ${workspaceId} order by created_at desc, id desc limit 1`;
  if (!agent) throw new Error('the workspace has no agent');
  return agent.id;
}
