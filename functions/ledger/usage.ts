import { routes } from '#contract/routes.ts';
import { UsageQuery, usageParams } from '#contract/schemas/ledger-requests.ts';
import { usageReport } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseQuery } from '../http/query.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /usage?from=&to=&groupBy=&timezone= */
export const build = (deps: Deps) =>
  route(routes.getUsage, deps, async (req) => {
    const query = parseQuery(UsageQuery, usageParams, req.event);
    return json(req.requestId, 200, await usageReport(req.runner, req.caller, query));
  });

export const handler = lambda(build);
