import type { Transition } from '#db/queries/session-writes.ts';
import { noSuch } from '../http/path.ts';
import { conflict, HttpProblem, problemType, validationFailed } from '../http/problem.ts';
import { jsonText } from '../http/respond.ts';
import type { ApiResult } from '../http/types.ts';

/** A transition the session's status does not allow (docs/api.md, the table): 409, naming the status. */
export const illegalTransition = (action: string, status: string) =>
  new HttpProblem(
    409,
    problemType('illegal-transition'),
    `A session that is ${status} cannot be ${action}.`,
    [{ path: 'status', message: `is ${status}` }],
  );

/** A transition's outcome as the answer: the session (200), 404, 400 (a value refused) or 409. */
export function answer(requestId: string, action: string, outcome: Transition): ApiResult {
  switch (outcome.kind) {
    case 'done':
      return jsonText(requestId, 200, outcome.item);
    case 'missing':
      throw noSuch('session');
    case 'illegal':
      throw illegalTransition(action, outcome.status);
    case 'refused':
      throw validationFailed(`The request body is invalid: ${outcome.path} ${outcome.message}.`, [
        { path: outcome.path, message: outcome.message },
      ]);
    case 'agent-archived':
      throw conflict('The session’s agent is archived: it runs no more sessions.', [
        { path: 'agentId', message: 'is archived' },
      ]);
  }
}
