import type { ChangeOf, ChangeOutcome } from '#db/queries/agent-changes.ts';
import { parsed } from '#db/queries/json-text.ts';
import { locationOf } from '../http/host.ts';
import { noSuch } from '../http/path.ts';
import { conflict, preconditionFailed } from '../http/problem.ts';
import { jsonText } from '../http/respond.ts';
import type { Request } from '../http/route.ts';
import type { ApiResult } from '../http/types.ts';

/** Who changes the agent (the caller), which one, and on which ETags (none: any). */
export const changeOf = (
  req: Request,
  agentId: string,
  ifMatch: readonly string[] | undefined,
): ChangeOf => ({
  workspaceId: req.caller.workspaceId,
  agentId,
  principalId: req.caller.principalId,
  keyId: req.caller.keyId,
  ifMatch,
});

/**
 * A change's outcome as the answer: the changed (or, for a repeated archive, unchanged) resource
 * with the agent's ETag (and, when it created one, `Location`: `createdId`); otherwise the problem
 * (404, 412, 409). `versionField` names the body member whose version is not one of the agent's.
 */
export function answerChange<T>(
  req: Request,
  outcome: ChangeOutcome<T>,
  options: { status?: number; what: string; versionField?: string; createdId?: (answer: T) => string },
): ApiResult {
  switch (outcome.kind) {
    case 'missing':
      throw noSuch('agent');
    case 'stale':
      throw preconditionFailed(
        'The agent has changed since that ETag (If-Match): read it again and retry with its current ETag.',
      );
    case 'refused':
      throw conflict(
        `The agent is ${outcome.status}: ${options.what} needs a DRAFT or PUBLISHED agent` +
          `${outcome.status === 'ARCHIVED' ? '; unarchive it first' : ''}.`,
      );
    case 'unknownVersion': {
      const path = options.versionField ?? 'versionId';
      throw conflict(`The ${path} is not a version of this agent.`, [
        { path, message: 'is not a version of this agent' },
      ]);
    }
    default:
      // As the reads wrote it: the same bytes as a GET of the resource.
      return jsonText(req.requestId, options.status ?? 200, outcome.answer, {
        etag: outcome.etag,
        ...(options.createdId ? locationOf(req.event, options.createdId(parsed(outcome.answer))) : {}),
      });
  }
}
