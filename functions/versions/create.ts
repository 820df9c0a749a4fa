import { routes } from '#contract/routes.ts';
import { completeConfig } from '#contract/schemas/config.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { CreateVersionBody } from '#contract/schemas/version-requests.ts';
import type { SqlRunner } from '#db/database.ts';
import { createVersion, type VersionEdit } from '#db/queries/agent-changes.ts';
import { answerChange, changeOf } from '../agents/change.ts';
import { type Deps, lambda } from '../deps.ts';
import { matchingTags, requiredIfMatch } from '../http/etag.ts';
import { idempotencyKeyOf, idempotent } from '../http/idempotency.ts';
import { route } from '../http/route.ts';

/** POST /agents/{agentId}/versions */
export const build = (deps: Deps) =>
  route({ ...routes.createVersion, query: noQuery, body: CreateVersionBody }, deps, async (req) => {
    const { params, body } = req;
    const ifMatch = matchingTags(requiredIfMatch(req.event, 'an agent'));
    const of = changeOf(req, params.agentId, ifMatch);
    const key = idempotencyKeyOf(req);
    const create = async (sql: SqlRunner) =>
      answerChange(req, await createVersion(sql, of, versionEdit(body)), {
        status: 201,
        what: 'a new version',
        versionField: 'sourceAgentVersionId',
        createdId: (version) => version.id,
      });
    // The agent and the precondition identify the request as much as its body does.
    return key
      ? idempotent(deps.database, req, key, { agentId: params.agentId, ifMatch, body }, create)
      : create(req.runner);
  });

export const handler = lambda(build);

/** The request as the data layer's edit: a config given is completed as the create completes it. */
function versionEdit({ config, ...rest }: CreateVersionBody): VersionEdit {
  return { ...rest, ...(config === undefined ? {} : { config: config && completeConfig(config) }) };
}
