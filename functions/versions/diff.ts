import { createPatch } from 'rfc6902';
import { routes } from '#contract/routes.ts';
import type { JsonPatch } from '#contract/schemas/json-patch.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getConfigurationPair } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /agents/{agentId}/versions/{versionId}/diff/{toVersionId} */
export const build = (deps: Deps) =>
  route({ ...routes.diffVersions, query: noQuery }, deps, async (req) => {
    const { agentId, versionId, toVersionId } = req.params;
    const pair = await getConfigurationPair(req.runner, req.caller, agentId, versionId, toVersionId);
    if ('missing' in pair) throw noSuch(pair.missing);
    // createPatch emits only add, remove and replace: the operations JsonPatch names.
    const patch = createPatch(pair.from, pair.to) as JsonPatch;
    return json(req.requestId, 200, patch, { 'content-type': 'application/json-patch+json' });
  });

export const handler = lambda(build);
