import * as v from 'valibot';
import { sessionType } from '../enums.ts';
import {
  atMost,
  choiceOf,
  E164,
  Id,
  Int32,
  readableName,
  readableText,
  strictJsonObject,
  Timestamp,
} from './common.ts';

const nonEmpty = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(max));

/**
 * Who the session is with: found by email, else by phone, among the workspace's persons, or made.
 * Emails are kept and matched in lower case.
 */
const SessionPerson = v.pipe(
  strictJsonObject({
    email: v.nullish(
      v.pipe(v.string(), v.trim(), v.toLowerCase(), atMost(255), v.email('must be an email address')),
      null,
    ),
    phone: v.nullish(
      v.pipe(v.string(), v.regex(E164, 'must be an E.164 number (+ and 2 to 16 digits)')),
      null,
    ),
    properties: v.optional(v.record(v.string(), v.unknown()), () => ({})),
  }),
  v.check(
    (p) => p.email !== null || p.phone !== null,
    'needs an email or a phone: the person is found (or made) by one of them',
  ),
);

/** POST /sessions: a session for an agent, on its published version unless a version is named. */
export const CreateSessionBody = strictJsonObject({
  agentId: Id,
  agentVersionId: v.nullish(Id, null),
  type: choiceOf(sessionType),
  /** Omitted: the conversation's name. */
  name: v.nullish(
    v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), atMost(255), ...readableName),
    null,
  ),
  recordAudio: v.optional(v.boolean(), false),
  person: SessionPerson,
});
export type CreateSessionBody = v.InferOutput<typeof CreateSessionBody>;

/** A timestamp as the API writes them, and a real instant (not 2026-02-30). */
const Instant = v.pipe(
  Timestamp,
  v.check((s) => new Date(s).toISOString() === s, 'must be a real instant'),
);

/** POST /sessions/{sessionId}/complete: all optional; `usage` books one VOICE_USAGE ledger entry. */
export const CompleteSessionBody = strictJsonObject({
  endedAt: v.nullish(Instant, null),
  traceId: v.nullish(v.pipe(nonEmpty(255), ...readableText), null),
  usage: v.nullish(strictJsonObject({ amount: Int32 }), null),
});
export type CompleteSessionBody = v.InferOutput<typeof CompleteSessionBody>;
