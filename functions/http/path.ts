import * as v from 'valibot';
import { type PathParamName, pathParams } from '#contract/schemas/path.ts';
import { notFound } from './problem.ts';
import type { ApiEvent } from './types.ts';

/**
 * A path parameter's value (API Gateway decoded it once into `pathParameters`), checked against
 * its schema (contract/schemas/path.ts). A value that cannot name anything is a 404 like an
 * unknown one, never a 400: the path names a resource, and no such resource exists
 * (docs/decisions.md). `what` names it in the problem (default: the parameter's own, `agent`).
 */
export function pathParam(
  event: Pick<ApiEvent, 'pathParameters'>,
  name: PathParamName,
  what: string = whatOf(name),
): string {
  const value = event.pathParameters?.[name];
  if (value === undefined || !v.is(pathParams[name].schema, value)) throw noSuch(what);
  return value;
}

/** What a path parameter names (contract/schemas/path.ts), e.g. `agent` for `agentId`. */
export const whatOf = (name: PathParamName): string => {
  const param: { what?: string } = pathParams[name];
  return param.what ?? name.replace(/Id$/, '');
};

/** The 404 of a resource the caller's workspace does not hold (or that does not exist at all). */
export const noSuch = (what: string) => notFound(`No ${what} with this id in this workspace.`);
