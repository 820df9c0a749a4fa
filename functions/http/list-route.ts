import type * as v from 'valibot';
import { type PathParamName, pathParamNames } from '#contract/schemas/path.ts';
import type { RouteQuery } from '#contract/schemas/query.ts';
import type { DatabaseClient } from '#db/database.ts';
import type { Page } from '#db/queries/list-window.ts';
import type { Position } from './cursor.ts';
import type { Logger } from './log.ts';
import { type ListRequest, listRequest, listResponse, type PagingQuery } from './pagination.ts';
import { noSuch, whatOf } from './path.ts';
import { type Declaration, type Request, route } from './route.ts';
import type { ApiHandler, ApiResult } from './types.ts';

/** A list route's declaration: its query is a list's (paging and filters), and it names its list. */
export interface ListDeclaration extends Declaration {
  readonly query: RouteQuery<v.GenericSchema<unknown, PagingQuery>>;
  /**
   * The list a cursor is bound to (with the workspace, order and filters): a position in one list
   * means nothing in another. A function of the path's parameters for a list under a resource.
   */
  readonly list: string | ((params: Record<string, string>) => string);
}

type Filters<D extends ListDeclaration> = Omit<Request<D>['query'], keyof PagingQuery>;

/** What a list's one statement reads: the window, the filters, and whether to count. */
export interface ListRead<F> extends ListRequest<F> {
  includeTotal: boolean;
}

/**
 * A list route: the declared query split into window and filters (`listRequest`), one statement
 * (`read`), and the page as the answer (`listResponse`; `format` may change it, as the ledger's CSV).
 * A list under a resource (an agent's versions) reads `undefined` when there is no such resource:
 * the 404 names the path's last parameter.
 */
export function listRoute<D extends ListDeclaration>(
  def: D,
  deps: { database: DatabaseClient; logger: Logger },
  read: (req: Request<D>, list: ListRead<Filters<D>>) => Promise<Page<Position> | undefined>,
  format?: (answer: ApiResult, req: Request<D>, list: ListRead<Filters<D>>) => ApiResult,
): ApiHandler {
  const parent = pathParamNames(def.path).at(-1) as PathParamName | undefined;
  return route(def, deps, async (req) => {
    const query = req.query as PagingQuery;
    const name = typeof def.list === 'string' ? def.list : def.list(req.params);
    const list = Object.assign(listRequest(query, name, req.caller.workspaceId), {
      includeTotal: query.includeTotal === true,
    }) as ListRead<Filters<D>>;
    const page = await read(req, list);
    if (!page) throw noSuch(parent ? whatOf(parent) : 'list');
    const answer = listResponse(req, list, page.items, page.total);
    return format ? format(answer, req, list) : answer;
  });
}
