import { routes } from '#contract/routes.ts';
import { versionListQuery } from '#contract/schemas/list-queries.ts';
import { pageVersionsJson } from '#db/queries/versions.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';

/** GET /agents/{agentId}/versions (no such agent: 404) */
export const build = (deps: Deps) =>
  listRoute(
    // A position among one agent's versions means nothing in another's.
    { ...routes.listVersions, query: versionListQuery, list: (p) => `agents/${p.agentId}/versions` },
    deps,
    (req, list) =>
      pageVersionsJson(req.runner, req.caller, req.params.agentId, list.window, list.includeTotal),
  );

export const handler = lambda(build);
