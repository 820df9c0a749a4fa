import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { readBalance } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { json } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /balance: one primary-key read. */
export const build = (deps: Deps) =>
  route({ ...routes.getBalance, query: noQuery }, deps, async (req) => {
    return json(req.requestId, 200, await readBalance(req.runner, req.caller));
  });

export const handler = lambda(build);
