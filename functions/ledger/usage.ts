import { routes } from '#contract/routes.ts';
import { usageQuery } from '#contract/schemas/ledger-requests.ts';
import { usageReport } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /usage?from=&to=&groupBy=&timezone= */
export const build = (deps: Deps) =>
  route({ ...routes.getUsage, query: usageQuery }, deps, async (req) =>
    json(req.requestId, 200, await usageReport(req.runner, req.caller, req.query)),
  );

export const handler = lambda(build);
