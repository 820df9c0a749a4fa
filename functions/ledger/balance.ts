import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { readBalanceJson } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /balance: one primary-key read, its JSON built by Postgres and passed through. */
export const build = (deps: Deps) =>
  route({ ...routes.getBalance, query: noQuery }, deps, async (req) =>
    jsonText(req.requestId, 200, await readBalanceJson(req.runner, req.caller)),
  );

export const handler = lambda(build);
