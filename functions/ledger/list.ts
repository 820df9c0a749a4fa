import { routes } from '#contract/routes.ts';
import { ledgerListQuery } from '#contract/schemas/ledger-requests.ts';
import { pageLedgerJson } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { listRoute } from '../http/list-route.ts';
import { headerOf } from '../http/types.ts';
import { asCsv, wantsCsv } from './csv.ts';

/** GET /ledger (`Accept: text/csv`: the same page as CSV) */
export const build = (deps: Deps) =>
  listRoute(
    { ...routes.listLedger, query: ledgerListQuery, list: 'ledger' },
    deps,
    (req, list) => pageLedgerJson(req.runner, req.caller, list.filters, list.window, list.includeTotal),
    (answer, req, list) =>
      wantsCsv(headerOf(req.event.headers, 'accept')) ? asCsv(answer, list.window.limit) : answer,
  );

export const handler = lambda(build);
