import { createId } from '../queries/ids.ts';
import type { agents, agentVersions } from '../schema/index.ts';
import type { AgentFixture } from './fixtures.ts';

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
export const iso = (ms: number) => new Date(ms).toISOString();

export interface AgentContext {
  workspaceId: string;
  themeId: string;
  /** Recorded as createdBy/updatedBy: the principal of the demo key. */
  principalId: string;
  now: number;
}

/** An agent and its versions on the fixture's timeline; `a` keeps creation times distinct. */
export function planAgent(fixture: AgentFixture, a: number, input: AgentContext) {
  const { workspaceId, themeId, principalId: by, now } = input;
  const at = (daysAgo: number, n: number) => now - daysAgo * DAY + (a * 7 + n) * MINUTE;
  const agentId = createId();
  let previous: string | null = null;
  const versions = fixture.versions.map(({ daysAgo, ...fields }, n) => {
    const id = createId();
    const created = iso(at(daysAgo, n));
    const row: typeof agentVersions.$inferInsert & { createdAt: string } = {
      ...fields,
      id,
      agentId,
      version: n + 1,
      workspaceId,
      themeId,
      sourceAgentVersionId: previous,
      createdAt: created,
      updatedAt: created,
      createdBy: by,
      updatedBy: by,
    };
    previous = id;
    return row;
  });
  const latest = versions.at(-1) as (typeof versions)[number];
  const from = at(fixture.versions[0]?.daysAgo ?? 0, 0);
  const until = fixture.endedDaysAgo === undefined ? now : at(fixture.endedDaysAgo, 0);
  const ended = fixture.endedDaysAgo === undefined ? undefined : iso(until);
  const published =
    fixture.status === 'PUBLISHED' ? iso(Date.parse(latest.createdAt) + 60 * MINUTE) : undefined;
  // An archived agent takes no sessions: it is inserted as a draft, and archived (`archivedAt`)
  // once its sessions are in (db/seed/demo-workspace.ts).
  const archivedAt = fixture.status === 'ARCHIVED' ? ended : undefined;
  const agent: typeof agents.$inferInsert = {
    id: agentId,
    workspaceId,
    createdAt: iso(from),
    updatedAt: published ?? ended ?? latest.createdAt,
    createdBy: by,
    updatedBy: by,
    name: fixture.name,
    description: fixture.description,
    slug: fixture.slug,
    status: archivedAt ? 'DRAFT' : fixture.status,
    ...(published ? { publishedVersionId: latest.id, publishedAt: published, publishedBy: by } : {}),
    ...(fixture.status === 'COMPLETED' ? { completedAt: ended, completedBy: by } : {}),
  };
  // A session runs on the agent's newest version at the time it started.
  const versionAt = (ms: number) =>
    versions.findLast((v) => Date.parse(v.createdAt) <= ms) ?? (versions[0] as (typeof versions)[number]);
  // Keep clear of the end so a session's last heartbeat precedes the archive or completion.
  return {
    agent,
    status: fixture.status,
    archivedAt,
    versions,
    from,
    until: ended ? until - DAY : Number.POSITIVE_INFINITY,
    versionAt,
  };
}
