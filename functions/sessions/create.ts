import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { CreateSessionBody } from '#contract/schemas/session-requests.ts';
import type { SqlRunner } from '#db/database.ts';
import { AgentUnusable, createSession, type NewSession, PersonsClash } from '#db/queries/create-session.ts';
import { type Deps, lambda } from '../deps.ts';
import { locationOf } from '../http/host.ts';
import { idempotent, requiredIdempotencyKey } from '../http/idempotency.ts';
import { conflict, validationFailed } from '../http/problem.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';
import { requireCredit } from '../ledger/admission.ts';

/** POST /sessions */
export const build = (deps: Deps) =>
  route({ ...routes.createSession, query: noQuery, body: CreateSessionBody }, deps, async (req) => {
    const key = requiredIdempotencyKey(req, 'record a second session');
    const session: NewSession = { workspaceId: req.caller.workspaceId, keyId: req.caller.keyId, ...req.body };
    return idempotent(deps.database, req, key, req.body, async (tx) => {
      const { id, item } = await createOrRefuse(tx, session);
      await requireCredit(tx, session.workspaceId);
      return jsonText(req.requestId, 201, item, locationOf(req.event, id));
    });
  });

export const handler = lambda(build);

/**
 * The data layer's refusals, as the client's: a reference to nothing (400), an agent not usable now
 * or an email and a phone of two persons (409).
 */
async function createOrRefuse(tx: SqlRunner, session: NewSession) {
  try {
    return await createSession(tx, session);
  } catch (error) {
    if (error instanceof PersonsClash) {
      throw conflict(
        'The email and the phone belong to two different persons of this workspace: send one of them.',
        [
          { path: 'person.email', message: 'belongs to another person than person.phone' },
          { path: 'person.phone', message: 'belongs to another person than person.email' },
        ],
      );
    }
    if (!(error instanceof AgentUnusable)) throw error;
    switch (error.why) {
      case 'unknown-agent':
        throw validationFailed('The request body is invalid: agentId is not an agent of this workspace.', [
          { path: 'agentId', message: 'is not an agent of this workspace' },
        ]);
      case 'unknown-version':
        throw validationFailed(
          'The request body is invalid: agentVersionId is not a version of this agent.',
          [{ path: 'agentVersionId', message: 'is not a version of this agent' }],
        );
      case 'archived':
        throw conflict('The agent is archived: it takes no new sessions.', [
          { path: 'agentId', message: 'is archived' },
        ]);
      case 'unpublished':
        throw conflict('The agent has no published version: publish one, or name a version.', [
          { path: 'agentVersionId', message: 'is required while the agent has no published version' },
        ]);
    }
  }
}
