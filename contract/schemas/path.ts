import type * as v from 'valibot';
import { Id } from './common.ts';

/**
 * One path parameter (`{agentId}` in a route's path): how its value is validated and what it
 * names. Declared once, read by the handlers (functions/http/path.ts) and the OpenAPI generator.
 */
export interface PathParam<S extends v.GenericSchema = v.GenericSchema> {
  readonly schema: S;
  readonly description: string;
}

const idParam = (what: string): PathParam<typeof Id> => ({
  schema: Id,
  description: `The ${what}'s id (cuid2, at most 24 characters).`,
});

/** Every path parameter a route may name; a route naming another fails the OpenAPI generator. */
export const pathParams = {
  agentId: idParam('agent'),
  versionId: idParam('agent version'),
  toVersionId: {
    schema: Id,
    description: 'The id of the agent version the patch leads to (cuid2, at most 24 characters).',
  },
  sessionId: idParam('session'),
  entryId: idParam('ledger entry'),
  endpointId: idParam('webhook endpoint'),
  deliveryId: idParam('webhook delivery'),
} as const satisfies Record<string, PathParam>;

export type PathParamName = keyof typeof pathParams;

/** The `{name}`s of a route's path, in order. */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1] as string);
