import sql, { type Sql } from 'sql-template-tag';
import type { sessionType } from '#contract/enums.ts';
import type { Session } from '#contract/schemas/session.ts';
import type { SqlRunner } from '../database.ts';
import { type CallingKey, keyIsLive } from './api-keys.ts';
import { clock } from './clock.ts';
import { eventInsert, sessionEventData } from './events.ts';
import { idMaker } from './ids.ts';
import type { JsonText } from './json-text.ts';
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
    select a.name as name, (a.archived_at is not null or a.status = 'ARCHIVED') as archived,
      v.id as "versionId"
    from agents a
    left join agent_versions v on v.agent_id = a.id
      and v.id = coalesce(${input.agentVersionId}::varchar, a.published_version_id)
    where a.id = ${input.agentId} and a.workspace_id = ${ws} and ${keyIsLive(input.keyId)}
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
      select c.id, c.name from conversations c
      where c.workspace_id = ${ws} and c.person_id = ${personId} and c.archived_at is null
        and exists (select 1 from sessions s where s.workspace_id = ${ws} and s.conversation_id = c.id
          and s.agent_id = ${input.agentId})
      order by c.created_at desc, c.id desc limit 1
    ), made as (
      insert into conversations (id, created_at, updated_at, workspace_id, person_id, name, is_demo)
      select ${createId()}, ${now}, ${now}, ${ws}, ${personId}, left(${`${identity} · ${agent.name}`}::text, 255),
        ${input.isDemo ?? false}
      where not exists (select 1 from existing)
      returning id, name
    ), conversation as (select * from existing union all select * from made
    ), new_session as (
    insert into sessions (id, created_at, updated_at, workspace_id, name, type,
      record_audio, is_demo, agent_id, agent_version_id, person_id, conversation_id)
    select ${sessionId}, ${now}, ${now}, ${ws}, coalesce(${input.name}::varchar, conversation.name),
      ${input.type}::session_type, ${input.recordAudio}, ${input.isDemo ?? false}, ${input.agentId},
      ${agent.versionId}, ${personId}, conversation.id
    from conversation
    returning *
    ), created as (${eventInsert('session.created', sql`select workspace_id, ${sessionEventData()} as data from new_session`, now)})
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
  const live = sql`p.workspace_id = ${ws} and p.deleted_at is null and p.id = p.root_person_id`;
  const [row] = await tx.rows<{ id: string | null; clash: boolean }>(sql`
    with by_email as (
      select p.id from persons p where ${live} and p.email = ${email}::varchar
    ), by_phone as (
      select p.id from persons p where ${live} and p.phone = ${phone}::varchar
    ), clash as (
      select 1 from by_email e, by_phone f where e.id <> f.id
    ), found as (
      select id from by_email union all select id from by_phone where not exists (select 1 from by_email)
    ), touched as (
      update persons p set last_seen_at = ${now},
        updated_at = greatest(${now}, p.updated_at + interval '1 millisecond'),
        email = coalesce(p.email, ${email}::varchar), phone = coalesce(p.phone, ${phone}::varchar),
        properties = p.properties || ${properties}::jsonb
      from found where p.id = found.id and not exists (select 1 from clash)
      returning p.id
    ), made as (
      insert into persons (id, created_at, updated_at, first_seen_at, last_seen_at, workspace_id,
        root_person_id, email, phone, properties, identified_at)
      select ${newId}, ${now}, ${now}, ${now}, ${now}, ${ws}, ${newId}, ${email}::varchar, ${phone}::varchar,
        ${properties}::jsonb, ${now}
      where not exists (select 1 from found)
      returning id
    )
    select id as id, false as clash from touched union all select id, false from made
    union all select null, true from clash`);
  if (row?.clash) throw new PersonsClash();
  if (!row?.id) throw new Error('the person was neither found nor made');
  return row.id;
}
