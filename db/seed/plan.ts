import { randomBytes } from 'node:crypto';
import type { NewSession } from '../queries/create-session.ts';
import type { agents, agentVersions, ledgerEntries } from '../schema/index.ts';
import { agentFixtures } from './fixtures.ts';
import { type AgentContext, DAY, iso, MINUTE, planAgent } from './plan-agents.ts';
import { type PlannedPerson, planPeople } from './plan-people.ts';

/**
 * A session as its voice runtime would have recorded it, each call of the write path with its time:
 * created (POST /sessions), started, one heartbeat (the last), completed with its usage.
 */
export interface PlannedSession {
  create: Omit<NewSession, 'workspaceId' | 'keyId'> & { at: string };
  start?: string;
  heartbeat?: string;
  complete?: { at: string; endedAt: string; traceId: string; usage: number | null };
}

export interface DemoPlan {
  /** Inserted as they are: their fields are more than the API can set yet. */
  agents: (typeof agents.$inferInsert)[];
  agentVersions: (typeof agentVersions.$inferInsert)[];
  /** The workspace's opening credit: inserted as it is (no API books it). */
  openingLedger: (typeof ledgerEntries.$inferInsert)[];
  /** Newest first; replayed oldest first through the write path. */
  sessions: PlannedSession[];
  /** Agents to archive once their sessions are in, and when. */
  archived: { agentId: string; at: string }[];
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

type Rng = () => number;
type PlannedAgent = ReturnType<typeof planAgent>;

/** What every session of one workspace is planned from. */
interface Planner {
  input: PlanInput;
  rng: Rng;
  agents: PlannedAgent[];
  /** Everyone a web session may be with; callers have a phone. */
  people: PlannedPerson[];
  callers: PlannedPerson[];
}

/** A demo workspace: its agents, and its sessions with times that agree with each one's status. */
export function planDemoWorkspace(input: PlanInput): DemoPlan {
  const { now } = input;
  const rng = random(20261121);
  const agents = agentFixtures.map((fixture, a) => planAgent(fixture, a, input));
  // A session's person is named by an e-mail or a phone: someone with neither never has one.
  const people = planPeople(Math.max(6, Math.ceil(input.sessions / 3))).filter((p) => p.email || p.phone);
  const planner: Planner = { input, rng, agents, people, callers: people.filter((p) => p.phone) };
  const sessions: PlannedSession[] = [];

  // Newest first, strictly decreasing createdAt: the list order is meaningful and has no ties.
  const spacing = SESSION_SPAN / input.sessions;
  for (let i = 0; i < input.sessions; i++) {
    const created = Math.round(now - 47 * MINUTE - i * spacing - rng() * (spacing / 2));
    sessions.push(planSession(planner, i, created));
  }

  return {
    agents: agents.map((p) => p.agent),
    agentVersions: agents.flatMap((p) => p.versions),
    openingLedger: openingLedger(input),
    sessions,
    archived: agents.flatMap((p) =>
      p.archivedAt ? [{ agentId: p.agent.id as string, at: p.archivedAt }] : [],
    ),
  };
}

/** The workspace's refills (its trial credit came with the workspace). */
function openingLedger({ workspaceId, principalId: by, now }: PlanInput): DemoPlan['openingLedger'] {
  const opening = [
    { amount: 5000, reason: 'SUBSCRIPTION_REFILL', reasonDetails: 'Monthly plan' },
    { amount: 10000, reason: 'PURCHASE_REFILL', reasonDetails: 'Invoice 2041' },
  ] as const;
  return opening.map((entry, i) => {
    const at = iso(now - (60 - i * 45) * DAY);
    return { workspaceId, ...entry, createdBy: by, createdAt: at, updatedAt: at, updatedBy: by };
  });
}

/** One session: its type, status, agent, caller and the times of the calls its status implies. */
function planSession(p: Planner, i: number, created: number): PlannedSession {
  const { rng, input } = p;
  // The first six cover every type and status; the rest are mostly finished calls.
  const type = (i < 6 ? i % 2 === 0 : rng() < 0.55) ? 'INBOUND_CALL' : 'WEB_VOICE';
  const status = statusOf(i, rng());
  const agent = agentFor(p, type, created);
  const version = agent.versionAt(created);
  // Repeat callers: the first people in the list call most often.
  const pool = type === 'INBOUND_CALL' ? p.callers : p.people;
  const person = pool[Math.floor(rng() ** 2 * pool.length)] ?? pick(rng, pool);
  const started = created + 2000 + Math.floor(rng() * 13_000);
  const seconds = 20 + Math.floor(rng() * 880);
  const ended = started + seconds * 1000;
  const isDemo = agent.status === 'DRAFT'; // only test calls reach an unpublished agent
  const session: PlannedSession = {
    create: {
      at: iso(created),
      agentId: agent.agent.id as string,
      agentVersionId: version.id as string,
      type,
      name: `${type === 'INBOUND_CALL' ? 'Call from' : 'Web session with'} ${person.first} ${person.last}`,
      recordAudio: rng() < 0.4,
      // Both identifiers when known, so each human stays one person.
      person: { email: person.email, phone: person.phone, properties: person.properties },
      isDemo,
    },
  };
  if (status === 'PENDING') return session;
  session.start = iso(started);
  if (status === 'IN_PROGRESS') {
    session.heartbeat = iso(Math.min(input.now - 1000, started + rng() * seconds * 1000));
    return session;
  }
  session.heartbeat = iso(ended - Math.floor(rng() * 5000));
  // A completed session's charge; test calls are free and so is anything under a minute.
  const minutes = Math.ceil(seconds / 60);
  session.complete = {
    at: iso(ended + 1500),
    endedAt: iso(ended),
    traceId: randomBytes(16).toString('hex'),
    usage: isDemo || seconds < 60 ? null : -minutes,
  };
  return session;
}

/** The first six walk through every status; then mostly completed, some pending or in progress. */
function statusOf(i: number, roll: number) {
  if (i < 6) return (['PENDING', 'IN_PROGRESS', 'COMPLETED'] as const)[Math.floor(i / 2)];
  return roll < 0.8 ? 'COMPLETED' : roll < 0.9 ? 'PENDING' : 'IN_PROGRESS';
}

/** An agent live at that time whose version then takes this kind of session. */
function agentFor(p: Planner, type: 'INBOUND_CALL' | 'WEB_VOICE', created: number) {
  const channel = type === 'INBOUND_CALL' ? 'PHONE' : 'WEB_VOICE';
  const live = p.agents.filter((a) => a.from <= created && created < a.until);
  const fits = live.filter((a) => a.versionAt(created).inputMode?.includes(channel));
  return pick(p.rng, fits.length ? fits : live.length ? live : p.agents);
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
