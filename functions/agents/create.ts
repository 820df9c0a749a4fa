import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Database } from '#db/client.ts';
import { constraintName, sqlState } from '#db/errors.ts';
import { insertAgent, type NewAgent } from '#db/queries/agents.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseJsonBody } from '../http/body.ts';
import { idempotencyKeyOf, idempotent } from '../http/idempotency.ts';
import { conflict } from '../http/problem.ts';
import { json } from '../http/respond.ts';
import { type Caller, route } from '../http/route.ts';
import { routes } from '../routes.ts';
import { completeConfig } from '../schemas/config.ts';
import { CreateAgentBody } from '../schemas/requests.ts';
import { slugFrom } from './slug.ts';

/** POST /agents */
export const build = (deps: Deps) =>
  route(routes.createAgent, deps, async (req) => {
    const body = parseJsonBody(CreateAgentBody, req.event);
    const agent = newAgent(body, req.caller);
    const key = idempotencyKeyOf(req);
    const create = async (db: Database) => json(req.requestId, 201, await createAgent(db, agent));
    return key ? idempotent(deps.db, req, key, body, create) : create(deps.db);
  });

export const handler = lambda(build);

/** The request plus the defaults DESIGN.md fixes for what it leaves out. */
function newAgent(body: CreateAgentBody, caller: Caller): NewAgent {
  const version = body.version ?? {};
  return {
    workspaceId: caller.workspaceId,
    principalId: caller.principalId,
    name: body.name,
    description: body.description ?? null,
    slug: body.slug ? { given: body.slug } : { derivedFrom: slugFrom(body.name) },
    version: {
      config: version.config ? completeConfig(version.config) : null,
      systemPrompt: version.systemPrompt ?? null,
      knowledgeBaseId: version.knowledgeBaseId ?? null,
      inputMode: version.inputMode ?? [],
      followUp: version.followUp ?? false,
    },
  };
}

const SLUG_TAKEN = 'agents_workspace_slug';
// Each round of a race has one winner, so this many rounds serve that many concurrent same-name creates.
const DERIVED_SLUG_ATTEMPTS = 25;

/**
 * A given slug that is taken is the client's conflict (409). A derived one lost a race with a
 * concurrent create of the same name: derive again (the next suffix is free by then).
 */
async function createAgent(db: Database, agent: NewAgent) {
  for (let attempt = 1; ; attempt++) {
    try {
      // Inside a transaction a failed statement poisons it: give each attempt its own savepoint.
      return db instanceof PgTransaction
        ? await db.transaction((savepoint) => insertAgent(savepoint as unknown as Database, agent))
        : await insertAgent(db, agent);
    } catch (error) {
      const slugTaken = sqlState(error) === '23505' && constraintName(error) === SLUG_TAKEN;
      if (!slugTaken) throw error;
      if ('given' in agent.slug) {
        throw conflict(`The slug "${agent.slug.given}" is already used by another agent in this workspace.`, [
          { path: 'slug', message: 'is already used by another agent in this workspace' },
        ]);
      }
      if (attempt >= DERIVED_SLUG_ATTEMPTS) {
        throw conflict('Too many agents with this name are being created at once; retry, or give a slug.', [
          { path: 'slug', message: 'could not be derived from the name; retry or give one' },
        ]);
      }
    }
  }
}
