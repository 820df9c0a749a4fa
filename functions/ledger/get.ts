import { routes } from '#contract/routes.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { getLedgerEntryJson } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { noSuch } from '../http/path.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** GET /ledger/{entryId} */
export const build = (deps: Deps) =>
  route({ ...routes.getLedgerEntry, query: noQuery }, deps, async (req) => {
    const item = await getLedgerEntryJson(req.runner, req.caller, req.params.entryId);
    if (!item) throw noSuch('ledger entry');
    return jsonText(req.requestId, 200, item);
  });

export const handler = lambda(build);
