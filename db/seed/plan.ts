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
import { type PlannedPerson, personRows, planPeople } from './plan-people.ts';

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

type Rng = () => number;
type PlannedAgent = ReturnType<typeof planAgent>;
type Session = DemoRows['sessions'][number];
type Conversation = DemoRows['conversations'][number];

/** What every session of one workspace is planned from. */
interface Planner {
  input: PlanInput;
  rng: Rng;
  agents: PlannedAgent[];
  people: PlannedPerson[];
  callers: PlannedPerson[];
}

/** Every row of a demo workspace, with timestamps that agree with each row's status. */
export function planDemoWorkspace(input: PlanInput): DemoRows {
  const { workspaceId, now } = input;
  const rng = random(20261121);
  const agents = agentFixtures.map((fixture, a) => planAgent(fixture, a, input));
  const people = planPeople(Math.max(6, Math.ceil(input.sessions / 3)));
  const planner: Planner = { input, rng, agents, people, callers: people.filter((p) => p.phone) };
  const sessions: Session[] = [];
  const ledgerEntries = openingLedger(input);
  const threads = new Map<string, Conversation>();

  // Newest first, strictly decreasing createdAt: the list order is meaningful and has no ties.
  const spacing = SESSION_SPAN / input.sessions;
  for (let i = 0; i < input.sessions; i++) {
    const created = Math.round(now - 47 * MINUTE - i * spacing - rng() * (spacing / 2));
    const { session, agent, person, seconds, ended } = planSession(planner, i, created);
    const usage = usageEntry(session, seconds);
    if (usage) ledgerEntries.push(usage);
    person.seen.push(created, session.status === 'COMPLETED' ? ended : created);
    session.conversationId = joinThread(threads, session, person, agent, ended, input);
    sessions.push(session);
  }

  return {
    agents: agents.map((p) => p.agent),
    agentVersions: agents.flatMap((p) => p.versions),
    persons: personRows(people, workspaceId, now - SESSION_SPAN - MINUTE),
    conversations: [...threads.values()],
    sessions,
    ledgerEntries,
  };
}

/** The workspace's trial credit and first refill. */
function openingLedger({ workspaceId, principalId: by, now }: PlanInput): DemoRows['ledgerEntries'] {
  const opening = [
    { amount: 5000, reason: 'INITIAL_BALANCE', reasonDetails: 'Trial credit' },
    { amount: 10000, reason: 'PURCHASE_REFILL', reasonDetails: 'Invoice 2041' },
  ] as const;
  return opening.map((entry, i) => {
    const at = iso(now - (60 - i * 45) * DAY);
    return { workspaceId, ...entry, createdBy: by, createdAt: at, updatedAt: at, updatedBy: by };
  });
}

/** One session: its type, status, agent, caller and the timestamps its status implies. */
function planSession(p: Planner, i: number, created: number) {
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
  const session: Session = {
    id: createId(),
    workspaceId: input.workspaceId,
    createdAt: iso(created),
    updatedAt: iso(created),
    name: `${type === 'INBOUND_CALL' ? 'Call from' : 'Web session with'} ${person.first} ${person.last}`,
    type,
    status,
    recordAudio: rng() < 0.4,
    isDemo: agent.agent.status === 'DRAFT', // only test calls reach an unpublished agent
    agentId: agent.agent.id as string,
    agentVersionId: version.id as string,
    personId: person.id,
    conversationId: '',
    completedMeta: null,
  };
  if (status === 'IN_PROGRESS') {
    session.startedAt = iso(started);
    session.lastHeartbeatAt = session.updatedAt = iso(
      Math.min(input.now - 1000, started + rng() * seconds * 1000),
    );
  } else if (status === 'COMPLETED') {
    session.startedAt = iso(started);
    session.lastHeartbeatAt = iso(ended - Math.floor(rng() * 5000));
    session.endedAt = iso(ended);
    session.completedAt = session.updatedAt = iso(ended + 1500);
    session.completedMeta = { traceId: randomBytes(16).toString('hex') };
  }
  return { session, agent, person, seconds, ended };
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

/** A completed session's charge; test calls are free and so is anything under a minute. */
function usageEntry(session: Session, seconds: number): DemoRows['ledgerEntries'][number] | undefined {
  if (session.status !== 'COMPLETED' || session.isDemo || seconds < 60) return undefined;
  const minutes = Math.ceil(seconds / 60);
  return {
    workspaceId: session.workspaceId,
    createdAt: session.completedAt ?? undefined,
    updatedAt: session.completedAt ?? undefined,
    amount: -minutes,
    reason: 'VOICE_USAGE',
    reasonDetails: `Voice, ${minutes} min`,
    agentId: session.agentId,
    sessionId: session.id,
    idempotencyKey: `voice-usage:${session.id}`,
  };
}

/** One conversation per person and agent (sessions come newest first); returns its id. */
function joinThread(
  threads: Map<string, Conversation>,
  session: Session,
  person: PlannedPerson,
  agent: PlannedAgent,
  ended: number,
  { workspaceId, principalId: by, now }: PlanInput,
): string {
  const key = `${person.id}:${session.agentId}`;
  const viewed = threads.size % 2 === 0;
  const thread = threads.get(key) ?? {
    id: createId(),
    workspaceId,
    personId: person.id,
    name: `${person.first} ${person.last} · ${agent.agent.name}`,
    isDemo: session.isDemo,
    updatedAt: session.updatedAt,
    lastSessionEndedAt: session.endedAt ?? null,
    archivedAt: agent.agent.archivedAt ?? null,
    archivedBy: agent.agent.archivedAt ? by : null,
    ...(viewed ? { lastViewedAt: iso(Math.min(now, ended + 2 * 60 * MINUTE)), lastViewedBy: by } : {}),
  };
  thread.createdAt = session.createdAt;
  if ((session.updatedAt as string) > (thread.updatedAt as string)) thread.updatedAt = session.updatedAt;
  thread.lastSessionEndedAt ??= session.endedAt ?? null;
  threads.set(key, thread);
  return thread.id as string;
}
