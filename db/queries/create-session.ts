import sql, { type Sql } from 'sql-template-tag';
import type { sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { eventInsert, sessionEventData } from './events.ts';
import { idMaker } from './ids.ts';
import type { JsonText } from './json-text.ts';
import {
  agents as A,
  conversations as C,
  enums as E,
  persons as P,
  sessions as S,
  agentVersions as V,
} from './names.generated.ts';
import { sessionJson } from './session-writes.ts';

/** In the calling key's workspace, guarded by that key. */
export interface NewSession extends CallingKey {
  agentId: string;
  /** null: the agent's published version. */
  agentVersionId: string | null;
  type: (typeof sessionType)[number];
  /** null: the conversation's name. */
  name: string | null;
  recordAudio: boolean;
  /** Found by email, else by phone (at least one given), or made. */
  person: { email: string | null; phone: string | null; properties: Record<string, unknown> };
  /** Seeds only: the session's `is_demo` (the API's are never demos). */
  isDemo?: boolean;
  /** Seeds only: when it was created (clock.ts); the API's: now. */
  at?: string;
}

/** Why a session cannot be made for the agent. */
export class AgentUnusable extends Error {
  constructor(readonly why: 'unknown-agent' | 'unknown-version' | 'archived' | 'unpublished') {
    super(why);
  }
}

/** The email and the phone given belong to two different persons of the workspace: neither is chosen. */
export class PersonsClash extends Error {
  constructor() {
    super('the email and the phone belong to two different persons');
  }
}

/**
 * A PENDING session of the agent, in the caller's transaction: the version (given, else the
 * published one), the person (upserted by email, else phone; concurrent creates for the same
 * person are serialised by a transaction-scoped advisory lock per identifier), the conversation
 * (the person's latest unarchived one with this agent, else a new one), then the session. The
 * first statement carries the calling key's guard: a key no longer live fails before any write,
 * and holds the agent's row (for share) to the end: an archive waits, never passing a create.
 */
export async function createSession(
  tx: SqlRunner,
  input: NewSession,
): Promise<{ id: string; item: JsonText<Session> }> {
  const { workspaceId: ws } = input;
  const [agent] = await tx.rows<{ name: string; archived: boolean; versionId: string | null }>(sql`
    select a.${A.name} as name, (a.${A.archivedAt} is not null or a.${A.status} = 'ARCHIVED') as archived,
      v.${V.id} as "versionId"
    from ${A.$} a
    left join ${V.$} v on v.${V.agentId} = a.${A.id}
      and v.${V.id} = coalesce(${input.agentVersionId}::varchar, a.${A.publishedVersionId})
    where a.${A.id} = ${input.agentId} and a.${A.workspaceId} = ${ws} and ${keyIsLive(input.keyId)}
    for share of a`);
  if (!agent) throw new AgentUnusable('unknown-agent');
  if (agent.archived) throw new AgentUnusable('archived');
  if (!agent.versionId) throw new AgentUnusable(input.agentVersionId ? 'unknown-version' : 'unpublished');

  const now = clock(input.at);
  const personId = await upsertPerson(tx, ws, input.person, now);
  const identity = input.person.email ?? input.person.phone;
  const createId = await idMaker();
  const sessionId = createId();
  await tx.rows(sql`
    with existing as (
      select c.${C.id}, c.${C.name} from ${C.$} c
      where c.${C.workspaceId} = ${ws} and c.${C.personId} = ${personId} and c.${C.archivedAt} is null
        and exists (select 1 from ${S.$} s where s.${S.workspaceId} = ${ws} and s.${S.conversationId} = c.${C.id}
          and s.${S.agentId} = ${input.agentId})
      order by c.${C.createdAt} desc, c.${C.id} desc limit 1
    ), made as (
      insert into ${C.$} (${C.id}, ${C.createdAt}, ${C.updatedAt}, ${C.workspaceId}, ${C.personId}, ${C.name}, ${C.isDemo})
      select ${createId()}, ${now}, ${now}, ${ws}, ${personId}, left(${`${identity} · ${agent.name}`}::text, 255),
        ${input.isDemo ?? false}
      where not exists (select 1 from existing)
      returning ${C.id}, ${C.name}
    ), conversation as (select * from existing union all select * from made
    ), new_session as (
    insert into ${S.$} (${S.id}, ${S.createdAt}, ${S.updatedAt}, ${S.workspaceId}, ${S.name}, ${S.type},
      ${S.recordAudio}, ${S.isDemo}, ${S.agentId}, ${S.agentVersionId}, ${S.personId}, ${S.conversationId})
    select ${sessionId}, ${now}, ${now}, ${ws}, coalesce(${input.name}::varchar, conversation.${C.name}),
      ${input.type}::${E.sessionType}, ${input.recordAudio}, ${input.isDemo ?? false}, ${input.agentId},
      ${agent.versionId}, ${personId}, conversation.${C.id}
    from conversation
    returning *
    ), created as (${eventInsert('session.created', sql`select ${S.workspaceId} as workspace_id, ${sessionEventData('new_session')} as data from new_session`, now)})
    select 1`);
  const created = await sessionJson(tx, input, sessionId);
  if (!created) throw new Error('the new session was not found');
  return { id: sessionId, item: created.item };
}

/**
 * The person with this email, else this phone, touched as seen `now` (an identifier it lacks is
 * added); or a new one. Returns its id. An email and a phone of two different persons: `PersonsClash`.
 */
async function upsertPerson(
  tx: SqlRunner,
  ws: string,
  person: NewSession['person'],
  now: Sql,
): Promise<string> {
  const { email, phone } = person;
  // Ordered, so two creates naming the same two identifiers cannot deadlock.
  await tx.rows(sql`
    select pg_advisory_xact_lock(hashtextextended(k, 0))
    from (select k from (values (${email === null ? null : `person:${ws}:email:${email}`}::text),
      (${phone === null ? null : `person:${ws}:phone:${phone}`}::text)) x(k) where k is not null order by k) keys`);
  const properties = JSON.stringify(person.properties);
  const newId = (await idMaker())();
  // Live persons only (not deleted, not merged into another): one per email and one per phone in a
  // workspace (the unique indexes persons_workspace_email and _phone).
  const live = sql`p.${P.workspaceId} = ${ws} and p.${P.deletedAt} is null and p.${P.id} = p.${P.rootPersonId}`;
  const [row] = await tx.rows<{ id: string | null; clash: boolean }>(sql`
    with by_email as (
      select p.${P.id} from ${P.$} p where ${live} and p.${P.email} = ${email}::varchar
    ), by_phone as (
      select p.${P.id} from ${P.$} p where ${live} and p.${P.phone} = ${phone}::varchar
    ), clash as (
      select 1 from by_email e, by_phone f where e.${P.id} <> f.${P.id}
    ), found as (
      select ${P.id} from by_email union all select ${P.id} from by_phone where not exists (select 1 from by_email)
    ), touched as (
      update ${P.$} p set ${P.lastSeenAt} = ${now},
        ${P.updatedAt} = greatest(${now}, p.${P.updatedAt} + interval '1 millisecond'),
        ${P.email} = coalesce(p.${P.email}, ${email}::varchar), ${P.phone} = coalesce(p.${P.phone}, ${phone}::varchar),
        ${P.properties} = p.${P.properties} || ${properties}::jsonb
      from found where p.${P.id} = found.${P.id} and not exists (select 1 from clash)
      returning p.${P.id}
    ), made as (
      insert into ${P.$} (${P.id}, ${P.createdAt}, ${P.updatedAt}, ${P.firstSeenAt}, ${P.lastSeenAt}, ${P.workspaceId},
        ${P.rootPersonId}, ${P.email}, ${P.phone}, ${P.properties}, ${P.identifiedAt})
      select ${newId}, ${now}, ${now}, ${now}, ${now}, ${ws}, ${newId}, ${email}::varchar, ${phone}::varchar,
        ${properties}::jsonb, ${now}
      where not exists (select 1 from found)
      returning ${P.id}
    )
    select ${P.id} as id, false as clash from touched union all select ${P.id}, false from made
    union all select null, true from clash`);
  if (row?.clash) throw new PersonsClash();
  if (!row?.id) throw new Error('the person was neither found nor made');
  return row.id;
}
