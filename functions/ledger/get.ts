import { routes } from '#contract/routes.ts';
import { NoQuery, noQueryParams } from '#contract/schemas/query.ts';
import { getLedgerEntryJson } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch, pathParam } from '../http/path.ts';
import { parseQuery } from '../http/query.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /ledger/{entryId} */
export const build = (deps: Deps) =>
  route(routes.getLedgerEntry, deps, async (req) => {
    const entryId = pathParam(req.event, 'entryId', 'ledger entry');
    parseQuery(NoQuery, noQueryParams, req.event);
    const item = await getLedgerEntryJson(req.runner, req.caller, entryId);
    if (!item) throw noSuch('ledger entry');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
