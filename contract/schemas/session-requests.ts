import * as v from 'valibot';
import { sessionType } from '../enums.ts';
import {
  atMost,
  choiceOf,
  E164,
  FreeFormInput,
  Id,
  Instant,
  Int32,
  readableName,
  readableText,
  strictJsonObject,
} from './common.ts';

const nonEmpty = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), atMost(max));

/**
 * Who the session is with: found by email, else by phone, among the workspace's persons, or made.
 * Emails are kept and matched in lower case.
 */
const SessionPerson = /* @__PURE__ */ (() =>
  v.pipe(
    strictJsonObject({
      email: v.nullish(
        v.pipe(v.string(), v.trim(), v.toLowerCase(), atMost(255), v.email('must be an email address')),
        null,
      ),
      phone: v.nullish(
        v.pipe(v.string(), v.regex(E164, 'must be an E.164 number (+ and 2 to 16 digits)')),
        null,
      ),
      properties: v.optional(FreeFormInput, () => ({})),
    }),
    v.check(
      (p) => p.email !== null || p.phone !== null,
      'needs an email or a phone: the person is found (or made) by one of them',
    ),
  ))();

/** POST /sessions: a session for an agent, on its published version unless a version is named. */
export const CreateSessionBody = /* @__PURE__ */ (() =>
  strictJsonObject({
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
  }))();
export type CreateSessionBody = v.InferOutput<typeof CreateSessionBody>;

/**
 * POST /sessions/{sessionId}/complete: all optional; `usage` books one VOICE_USAGE ledger entry, its
 * amount the credit spent: zero or negative (docs/decisions.md, the ledger).
 */
export const CompleteSessionBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    endedAt: v.nullish(Instant, null),
    traceId: v.nullish(v.pipe(nonEmpty(255), ...readableText), null),
    usage: v.nullish(
      strictJsonObject({ amount: v.pipe(Int32, v.maxValue(0, 'must not be positive: usage spends credit')) }),
      null,
    ),
  }))();
export type CompleteSessionBody = v.InferOutput<typeof CompleteSessionBody>;
