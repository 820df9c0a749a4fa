import { routes } from '#contract/routes.ts';
import { completeConfig } from '#contract/schemas/config.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { CreateAgentBody } from '#contract/schemas/version-requests.ts';
import type { SqlRunner } from '#db/database.ts';
import { createAgent, type NewAgent, SlugsExhausted, SlugTaken } from '#db/queries/create-agent.ts';
import { type Deps, lambda } from '../deps.ts';
import { locationOf } from '../http/host.ts';
import { idempotencyKeyOf, idempotent } from '../http/idempotency.ts';
import { conflict } from '../http/problem.ts';
import { jsonText } from '../http/respond.ts';
import { type Caller, route } from '../http/route.ts';
import { slugFrom, slugTaken } from './slug.ts';

/** POST /agents */
export const build = (deps: Deps) =>
  route({ ...routes.createAgent, query: noQuery, body: CreateAgentBody }, deps, async (req) => {
    const agent = newAgent(req.body, req.caller);
    const key = idempotencyKeyOf(req);
    const create = async (sql: SqlRunner) => {
      const created = await createOrConflict(sql, agent);
      return jsonText(req.requestId, 201, created.item, {
        etag: created.etag,
        ...locationOf(req.event, created.id),
      });
    };
    return key ? idempotent(deps.database, req, key, req.body, create) : create(req.runner);
  });

export const handler = lambda(build);

/** The request (its defaults filled in by the schema) as the data layer's new agent. */
function newAgent(body: CreateAgentBody, caller: Caller): NewAgent {
  const { config, systemPrompt, knowledgeBaseId, inputMode, followUp } = body.version;
  return {
    workspaceId: caller.workspaceId,
    principalId: caller.principalId,
    keyId: caller.keyId,
    name: body.name,
    description: body.description,
    slug: body.slug ? { given: body.slug } : { derivedFrom: slugFrom(body.name) },
    version: { config: config && completeConfig(config), systemPrompt, knowledgeBaseId, inputMode, followUp },
  };
}

/** The data layer's slug outcomes, as the client's conflicts (409). */
async function createOrConflict(sql: SqlRunner, agent: NewAgent) {
  try {
    return await createAgent(sql, agent);
  } catch (error) {
    if (error instanceof SlugTaken) throw slugTaken(error.slug);
    if (error instanceof SlugsExhausted) {
      throw conflict('Too many agents with this name are being created at once; retry, or give a slug.', [
        { path: 'slug', message: 'could not be derived from the name; retry or give one' },
      ]);
    }
    throw error;
  }
}
