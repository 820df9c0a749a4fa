import { randomBytes } from 'node:crypto';
import { createId } from '@paralleldrive/cuid2';
import type {
  agents,
  agentVersions,
  conversations,
  ledgerEntries,
  persons,
  sessions,
} from '../schema/index.ts';
import { agentFixtures } from './fixtures.ts';
import { type AgentContext, DAY, iso, MINUTE, planAgent } from './plan-agents.ts';
import { personRows, planPeople } from './plan-people.ts';

export interface DemoRows {
  agents: (typeof agents.$inferInsert)[];
  agentVersions: (typeof agentVersions.$inferInsert)[];
  persons: (typeof persons.$inferInsert)[];
  conversations: (typeof conversations.$inferInsert)[];
  sessions: (typeof sessions.$inferInsert)[];
  ledgerEntries: (typeof ledgerEntries.$inferInsert)[];
}

export interface PlanInput extends AgentContext {
  sessions: number;
}

const SESSION_SPAN = 30 * DAY;

/** mulberry32: a fixed seed gives every demo workspace the same shape; ids and times stay fresh. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every row of a demo workspace, with timestamps that agree with each row's status. */
export function planDemoWorkspace(input: PlanInput): DemoRows {
  const { workspaceId, principalId: by, now } = input;
  const rng = random(20261121);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

  const plannedAgents = agentFixtures.map((fixture, a) => planAgent(fixture, a, input));
  const rows: DemoRows = {
    agents: plannedAgents.map((p) => p.agent),
    agentVersions: plannedAgents.flatMap((p) => p.versions),
    persons: [],
    conversations: [],
    sessions: [],
    ledgerEntries: [
      { workspaceId, amount: 5000, reason: 'INITIAL_BALANCE', reasonDetails: 'Trial credit', createdBy: by },
      { workspaceId, amount: 10000, reason: 'PURCHASE_REFILL', reasonDetails: 'Invoice 2041', createdBy: by },
    ],
  };
  rows.ledgerEntries.forEach((entry, i) => {
    entry.createdAt = entry.updatedAt = iso(now - (60 - i * 45) * DAY);
    entry.updatedBy = by;
  });

  const people = planPeople(Math.max(6, Math.ceil(input.sessions / 3)));
  const callers = people.filter((p) => p.phone);
  const threads = new Map<string, NonNullable<DemoRows['conversations'][number]>>();

  // Newest first, strictly decreasing createdAt: the list order is meaningful and has no ties.
  const spacing = SESSION_SPAN / input.sessions;
  for (let i = 0; i < input.sessions; i++) {
    const created = Math.round(now - 47 * MINUTE - i * spacing - rng() * (spacing / 2));
    // The first six cover every type and status; the rest are mostly finished calls.
    const type = (i < 6 ? i % 2 === 0 : rng() < 0.55) ? 'INBOUND_CALL' : 'WEB_VOICE';
    const roll = rng();
    const status =
      i < 6
        ? (['PENDING', 'IN_PROGRESS', 'COMPLETED'] as const)[Math.floor(i / 2)]
        : roll < 0.8
          ? 'COMPLETED'
          : roll < 0.9
            ? 'PENDING'
            : 'IN_PROGRESS';
    // An agent live at that time whose version then takes this kind of session.
    const channel = type === 'INBOUND_CALL' ? 'PHONE' : 'WEB_VOICE';
    const live = plannedAgents.filter((p) => p.from <= created && created < p.until);
    const fits = live.filter((p) => p.versionAt(created).inputMode?.includes(channel));
    const agent = pick(fits.length ? fits : live.length ? live : plannedAgents);
    const version = agent.versionAt(created);
    // Repeat callers: the first people in the list call most often.
    const pool = type === 'INBOUND_CALL' ? callers : people;
    const person = pool[Math.floor(rng() ** 2 * pool.length)] ?? pick(pool);
    const isDemo = agent.agent.status === 'DRAFT'; // only test calls reach an unpublished agent

    const started = created + 2000 + Math.floor(rng() * 13_000);
    const seconds = 20 + Math.floor(rng() * 880);
    const ended = started + seconds * 1000;
    const id = createId();
    const session: DemoRows['sessions'][number] = {
      id,
      workspaceId,
      createdAt: iso(created),
      updatedAt: iso(created),
      name: `${type === 'INBOUND_CALL' ? 'Call from' : 'Web session with'} ${person.first} ${person.last}`,
      type,
      status,
      recordAudio: rng() < 0.4,
      isDemo,
      agentId: agent.agent.id as string,
      agentVersionId: version.id as string,
      personId: person.id,
      conversationId: '',
      completedMeta: null,
    };
    if (status === 'IN_PROGRESS') {
      session.startedAt = iso(started);
      session.lastHeartbeatAt = session.updatedAt = iso(
        Math.min(now - 1000, started + rng() * seconds * 1000),
      );
    } else if (status === 'COMPLETED') {
      session.startedAt = iso(started);
      session.lastHeartbeatAt = iso(ended - Math.floor(rng() * 5000));
      session.endedAt = iso(ended);
      session.completedAt = session.updatedAt = iso(ended + 1500);
      session.completedMeta = { traceId: randomBytes(16).toString('hex') };
      // Test calls are free and so is anything under a minute.
      if (!isDemo && seconds >= 60) {
        const minutes = Math.ceil(seconds / 60);
        rows.ledgerEntries.push({
          workspaceId,
          createdAt: session.completedAt,
          updatedAt: session.completedAt,
          amount: -minutes,
          reason: 'VOICE_USAGE',
          reasonDetails: `Voice, ${minutes} min`,
          agentId: session.agentId,
          sessionId: id,
          idempotencyKey: `voice-usage:${id}`,
        });
      }
    }
    person.seen.push(created, status === 'COMPLETED' ? ended : created);

    // One conversation per person and agent; sessions come newest first.
    const key = `${person.id}:${session.agentId}`;
    const thread = threads.get(key) ?? {
      id: createId(),
      workspaceId,
      personId: person.id,
      name: `${person.first} ${person.last} · ${agent.agent.name}`,
      isDemo,
      updatedAt: session.updatedAt,
      lastSessionEndedAt: session.endedAt ?? null,
      archivedAt: agent.agent.archivedAt ?? null,
      archivedBy: agent.agent.archivedAt ? by : null,
      ...(threads.size % 2 === 0 ? { lastViewedAt: iso(Math.min(now, ended + 2 * 60 * MINUTE)) } : {}),
      ...(threads.size % 2 === 0 ? { lastViewedBy: by } : {}),
    };
    thread.createdAt = session.createdAt;
    if ((session.updatedAt as string) > (thread.updatedAt as string)) thread.updatedAt = session.updatedAt;
    thread.lastSessionEndedAt ??= session.endedAt ?? null;
    threads.set(key, thread);
    session.conversationId = thread.id as string;
    rows.sessions.push(session);
  }
  rows.conversations = [...threads.values()];

  rows.persons = personRows(people, workspaceId, now - SESSION_SPAN - MINUTE);
  return rows;
}
