import { createPatch } from 'rfc6902';
import { routes } from '#contract/routes.ts';
import type { JsonPatch } from '#contract/schemas/json-patch.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getConfigurationPair } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId} */
export const build = (deps: Deps) =>
  route(routes.diffVersions, deps, async (req) => {
    const agentId = pathParam(req.event, 'agentId', 'agent');
    const fromId = pathParam(req.event, 'versionId', 'version');
    const toId = pathParam(req.event, 'toVersionId', 'version');
    parseQuery(NoQuery, noQueryParams, req.event);
    const pair = await getConfigurationPair(req.runner, req.caller, agentId, fromId, toId);
    if ('missing' in pair) throw noSuch(pair.missing);
    // createPatch emits only add, remove and replace: the operations JsonPatch names.
    const patch = createPatch(pair.from, pair.to) as JsonPatch;
    return json(req.requestId, 200, patch, { 'content-type': 'application/json-patch+json' });
  });

export const handler = lambda(build);
