import { routes } from '#contract/routes.ts';
import { CreditBody } from '#contract/schemas/ledger-requests.ts';
import { noQuery } from '#contract/schemas/query.ts';
import { bookCredit } from '#db/queries/ledger.ts';
import { type Deps, lambda } from '../deps.ts';
import { idempotent, requiredIdempotencyKey } from '../http/idempotency.ts';
import { jsonText } from '../http/respond.ts';
import { route } from '../http/route.ts';

/** POST /ledger/credits: the Idempotency-Key is required and becomes the entry's `idempotencyKey`. */
export const build = (deps: Deps) =>
  route({ ...routes.createCredit, query: noQuery, body: CreditBody }, deps, async (req) => {
    const key = requiredIdempotencyKey(req, 'credit twice');
    const credit = { ...req.body, idempotencyKey: key, principalId: req.caller.principalId };
    return idempotent(deps.database, req, key, req.body, async (tx) => {
      const { item, booked } = await bookCredit(tx, req.caller, credit);
      return jsonText(req.requestId, booked ? 201 : 200, item);
    });
  });

export const handler = lambda(build);
