import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { readBalance } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { parseQuery } from '../http/query.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /balance: one primary-key read. */
export const build = (deps: Deps) =>
  route(routes.getBalance, deps, async (req) => {
    parseQuery(NoQuery, noQueryParams, req.event);
    return json(req.requestId, 200, await readBalance(req.runner, req.caller));
  });

export const handler = lambda(build);
