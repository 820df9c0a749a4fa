import type * as v from 'valibot';
import { Id } from './common.ts';

/**
 * One path parameter (`{agentId}` in a route's path): how its value is validated and what it
 * names. Declared once, read by the route wrapper (functions/http/route.ts, which hands the handler
 * `req.params`) and the OpenAPI generator.
 */
export interface PathParam<S extends v.GenericSchema = v.GenericSchema> {
  readonly schema: S;
  readonly description: string;
  /** What it names in the 404 of a value naming nothing (`No agent with this id…`); default: the name less `Id`. */
  readonly what?: string;
}

const idParam = (what: string, description = `The ${what}'s id (cuid2, at most 24 characters).`) =>
  ({ schema: Id, description, what }) satisfies PathParam<typeof Id>;

/** Every path parameter a route may name; a route naming another fails the OpenAPI generator. */
export const pathParams = {
  agentId: idParam('agent'),
  versionId: idParam('version', "The agent version's id (cuid2, at most 24 characters)."),
  toVersionId: idParam(
    'version',
    'The id of the agent version the patch leads to (cuid2, at most 24 characters).',
  ),
  sessionId: idParam('session'),
  entryId: idParam('ledger entry'),
  endpointId: idParam('webhook endpoint'),
  deliveryId: idParam('webhook delivery'),
} as const satisfies Record<string, PathParam>;

export type PathParamName = keyof typeof pathParams;

/** The `{name}`s of a route's path, in order. */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1] as string);

/** The names a path's `{name}` segments give, as a type: `'/agents/{agentId}'` → `'agentId'`. */
export type PathParamsOf<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamsOf<Rest>
  : never;
