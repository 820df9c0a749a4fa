import { routes } from '#contract/routes.ts';
import { LedgerListQuery, ledgerListParams } from '#contract/schemas/ledger-requests.ts';
import { pageLedgerJson } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRequest, listResponse } from '../http/pagination.ts';
import { parseQuery } from '../http/query.ts';
import { route } from '../http/route.ts';
import { headerOf } from '../http/types.ts';
import { asCsv, wantsCsv } from './csv.ts';

/** GET /ledger (`Accept: text/csv`: the same page as CSV) */
export const build = (deps: Deps) =>
  route(routes.listLedger, deps, async (req) => {
    const query = parseQuery(LedgerListQuery, ledgerListParams, req.event);
    const list = listRequest(query, 'ledger', req.caller.workspaceId);
    const page = await pageLedgerJson(
      req.runner,
      req.caller,
      list.filters,
      list.window,
      query.includeTotal === true,
    );
    const answer = listResponse(req, list, page.items, page.total);
    return wantsCsv(headerOf(req.event.headers, 'accept')) ? asCsv(answer, list.window.limit) : answer;
  });

export const handler = lambda(build);
