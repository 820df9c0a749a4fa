import { type SQL, sql } from 'drizzle-orm';
import { VERSION_CONFIGURATION_FIELDS } from '#contract/schemas/agent.ts';
import type { Column } from '../queries/row-json.ts';
import {
  agentChanges,
  agents,
  agentVersions,
  conversations,
  ledgerEntries,
  persons,
  sessions,
} from '../schema/index.ts';
import {
  AGENT_CHANGE_FIELDS,
  AGENT_FIELDS,
  AGENT_VERSION_FIELDS,
  CONVERSATION_FIELDS,
  LEDGER_ENTRY_FIELDS,
  PERSON_FIELDS,
  SESSION_FIELDS,
} from './fields.ts';
import { columnOf as c, columnsOf, jsonOf, tableOf as t, textOf } from './json.ts';

/** A statement's slot, filled when it runs (a sql-template-tag value of the generated function). */
const slot = (name: string) => sql.raw(`\${${name}}`);

/** A generated statement: why it is written so, its slots, and its text. */
interface Statement {
  doc: string;
  slots: readonly string[];
  text: SQL;
}

const PAGE_SLOTS = ['page', 'dir', 'total', 'live'] as const;
const [page, dir, total, live] = PAGE_SLOTS.map(slot);
const ONE_SLOTS = ['agentId', 'workspaceId', 'etag', 'live'] as const;
const [agentId, workspaceId, etag] = ONE_SLOTS.map(slot);
const VERSION_PAGE_SLOTS = ['page', 'dir', 'total', 'agentId', 'workspaceId', 'live'] as const;
const VERSION_ONE_SLOTS = ['agentId', 'versionId', 'workspaceId', 'live'] as const;
const VERSION_PAIR_SLOTS = ['agentId', 'versionId', 'toVersionId', 'workspaceId', 'live'] as const;
const SESSION_ONE_SLOTS = ['sessionId', 'workspaceId', 'live'] as const;
const [versionId, toVersionId, sessionId] = ['versionId', 'toVersionId', 'sessionId'].map(slot) as [
  SQL,
  SQL,
  SQL,
];
const HISTORY_SLOTS = ['page', 'dir', 'total', 'found', 'live'] as const;
const LEDGER_ONE_SLOTS = ['entryId', 'workspaceId', 'live'] as const;
const entryId = slot('entryId');
const found = slot('found');

/**
 * The lists' statements, written against the Drizzle tables and the field lists and rendered to SQL
 * text by `npm run db:generate` into db/queries/items.generated.ts, which the handlers run (their
 * bundles carry neither Drizzle nor the tables); a test holds that file equal to what this renders
 * now. Every alias a statement reads is defined in it. Slots: `page` is the `page` CTE (the
 * window's ids and created_ats, db/queries/list-window.ts), `dir` the list's direction, `total`
 * the count of matching rows (a scalar subquery, so in the page's snapshot) or `null::int`. The
 * one-row `t` left-joined to the page carries the total even when the page is empty (then `item` is
 * null). `live` is the calling key's guard (db/queries/api-keys.ts `keyIsLive`), in every
 * statement's top-level WHERE: a one-time filter at the top of the plan, so a key revoked or
 * expired fails the statement even when it would find no row.
 */
export function renderStatements(): Record<string, Statement> {
  const agentItem = (indent: string) =>
    jsonOf(
      agents,
      'a',
      AGENT_FIELDS,
      { version: jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS, {}, `${indent}  `) },
      indent,
    );
  // The agent `a` with its latest version: a list's item, and the one agent's answer.
  const agentWithLatestVersion = jsonOf(
    agents,
    'a',
    AGENT_FIELDS,
    {
      version: sql`(select ${jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS, {}, '      ')}
      from ${t(agentVersions)} v where ${c(agentVersions.agentId, 'v')} = ${c(agents.id, 'a')}
      order by ${c(agentVersions.version, 'v')} desc limit 1)`,
    },
    '  ',
  );
  // Whether the workspace holds the agent `agentId`: a version read's 404 tells the two apart.
  const agentFound = sql`exists (select 1 from ${t(agents)} a where ${c(agents.id, 'a')} = ${agentId} and ${c(agents.workspaceId, 'a')} = ${workspaceId})`;
  // The version `v` (id and agent of the caller's workspace) as an agent embeds it.
  const versionOf = (
    id: SQL,
    indent: string,
  ) => sql`(select ${jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS, {}, indent)}
  from ${t(agentVersions)} v
  where ${c(agentVersions.id, 'v')} = ${id} and ${c(agentVersions.agentId, 'v')} = ${agentId} and ${c(agentVersions.workspaceId, 'v')} = ${workspaceId})`;
  const configurationOf = (
    id: SQL,
  ) => sql`(select ${jsonOf(agentVersions, 'v', VERSION_CONFIGURATION_FIELDS, {}, '  ')}
  from ${t(agentVersions)} v
  where ${c(agentVersions.id, 'v')} = ${id} and ${c(agentVersions.agentId, 'v')} = ${agentId} and ${c(agentVersions.workspaceId, 'v')} = ${workspaceId})`;
  // The session `s` with its agent (`agent`: the JSON of the agent and the version it ran on),
  // conversation, person and ledger entry: a page's item, and the one session's answer.
  const sessionItem = (agent: SQL) =>
    jsonOf(
      sessions,
      's',
      SESSION_FIELDS,
      {
        agent,
        conversation: sql`(select ${jsonOf(conversations, 'c', CONVERSATION_FIELDS, {}, '    ')}
    from ${t(conversations)} c where ${c(conversations.id, 'c')} = ${c(sessions.conversationId, 's')})`,
        person: sql`(select ${jsonOf(persons, 'p', PERSON_FIELDS, {}, '    ')}
    from ${t(persons)} p where ${c(persons.id, 'p')} = ${c(sessions.personId, 's')})`,
        ledger: sql`(select ${jsonOf(ledgerEntries, 'l', LEDGER_ENTRY_FIELDS, {}, '    ')}
    from ${t(ledgerEntries)} l where ${c(ledgerEntries.sessionId, 'l')} = ${c(sessions.id, 's')})`,
      },
      '',
    );
  return {
    sessionPage: {
      doc:
        'A page of sessions, each with its agent (and the version the session ran on), conversation, ' +
        "person and ledger entry. The page's rows are read once by primary key (`offset 0` keeps each " +
        'a probe: flattened, the planner hash-joined the page against a sequential scan of sessions), ' +
        "and each agent version's JSON, half of every item, is built once per page. Agents and " +
        'versions are joined, not probed by primary key (docs/performance.md). Conversation, person ' +
        "and ledger entry are scalar subqueries: one index probe each, a fraction of a join's " +
        'planning time, and a missing ledger entry is simply `null`.',
      slots: PAGE_SLOTS,
      text: sql`
with ${page},
page_sessions as materialized (
  select s.*
  from page
  cross join lateral (select * from ${t(sessions)} where ${t(sessions)}.${c(sessions.id)} = page.${c(sessions.id)} offset 0) s
),
page_agents as materialized (
  select d.${c(sessions.agentId)}, d.${c(sessions.agentVersionId)}, ${agentItem('  ')} as agent
  from (select distinct ${c(sessions.agentId)}, ${c(sessions.agentVersionId)} from page_sessions) d,
    ${t(agents)} a,
    ${t(agentVersions)} v
  where ${c(agents.id, 'a')} = d.${c(sessions.agentId)} and ${c(agentVersions.id, 'v')} = d.${c(sessions.agentVersionId)}
)
select t.total, case when ${c(sessions.id, 's')} is null then null else ${sessionItem(sql`ag.agent`)} end::text as item
from (select ${total} as total) t
left join (
  page_sessions s
  left join page_agents ag
    on ag.${c(sessions.agentId)} = ${c(sessions.agentId, 's')} and ag.${c(sessions.agentVersionId)} = ${c(sessions.agentVersionId, 's')}
) on true
where ${live}
order by ${c(sessions.createdAt, 's')} ${dir}, ${c(sessions.id, 's')} ${dir}`,
    },
    agentPage: {
      doc: 'A page of agents, each with its latest version (highest number), each read by primary key.',
      slots: PAGE_SLOTS,
      text: sql`
with ${page}
select t.total, (
  select ${agentWithLatestVersion}
  from ${t(agents)} a where ${c(agents.id, 'a')} = page.${c(agents.id)}
)::text as item
from (select ${total} as total) t
left join page on true
where ${live}
order by page.${c(agents.createdAt)} ${dir}, page.${c(agents.id)} ${dir}`,
    },
    agentOne: {
      doc:
        "One agent of a workspace, as the agent page's items are (its latest version), and its ETag " +
        '(`etag`: the expression of db/queries/agents.ts). No row when the workspace holds no such agent.',
      slots: ONE_SLOTS,
      text: sql`
select ${agentWithLatestVersion}::text as item, ${etag} as etag
from ${t(agents)} a
where ${c(agents.id, 'a')} = ${agentId} and ${c(agents.workspaceId, 'a')} = ${workspaceId} and ${live}`,
    },
    versionPage: {
      doc:
        "A page of an agent's versions (`page`: their ids and numbers, db/queries/versions.ts), each read " +
        'by primary key, ordered by number. `found` says whether the workspace holds the agent at all, ' +
        'so an empty page of an unknown agent is a 404 from the same statement.',
      slots: VERSION_PAGE_SLOTS,
      text: sql`
with ${page}
select t.total, t.found, (
  select ${jsonOf(agentVersions, 'v', AGENT_VERSION_FIELDS, {}, '  ')}
  from ${t(agentVersions)} v where ${c(agentVersions.id, 'v')} = page.${c(agentVersions.id)}
)::text as item
from (select ${total} as total, ${agentFound} as found) t
left join page on true
where ${live}
order by page.${c(agentVersions.version)} ${dir}`,
    },
    versionOne: {
      doc:
        "One version of a workspace's agent, as the agent embeds its latest (`item`, null when the agent " +
        'holds no such version), and whether the workspace holds the agent (`found`).',
      slots: VERSION_ONE_SLOTS,
      text: sql`
select ${agentFound} as found, ${versionOf(versionId, '  ')}::text as item
where ${live}`,
    },
    versionPair: {
      doc:
        "Two versions' configurations (`from`, `to`: the fields of VERSION_CONFIGURATION_FIELDS, null when " +
        'the agent holds no such version), and whether the workspace holds the agent (`found`).',
      slots: VERSION_PAIR_SLOTS,
      text: sql`
select ${agentFound} as found,
  ${configurationOf(versionId)}::text as "from",
  ${configurationOf(toVersionId)}::text as "to"
where ${live}`,
    },
    agentChangePage: {
      doc:
        "A page of one agent's history, each entry read by primary key. `found` says whether the " +
        'workspace holds the agent at all (an empty page of an agent that exists is not a 404), in the ' +
        "page's snapshot.",
      slots: HISTORY_SLOTS,
      text: sql`
with ${page}
select t.total, t.found, (
  select ${jsonOf(agentChanges, 'c', AGENT_CHANGE_FIELDS, {}, '  ')}
  from ${t(agentChanges)} c where ${c(agentChanges.id, 'c')} = page.${c(agentChanges.id)}
)::text as item
from (select ${total} as total, ${found} as found) t
left join page on true
where ${live}
order by page.${c(agentChanges.createdAt)} ${dir}, page.${c(agentChanges.id)} ${dir}`,
    },
    ledgerEntryPage: {
      doc: "A page of a workspace's ledger entries, each read by primary key.",
      slots: PAGE_SLOTS,
      text: sql`
with ${page}
select t.total, (
  select ${jsonOf(ledgerEntries, 'l', LEDGER_ENTRY_FIELDS, {}, '  ')}
  from ${t(ledgerEntries)} l where ${c(ledgerEntries.id, 'l')} = page.${c(ledgerEntries.id)}
)::text as item
from (select ${total} as total) t
left join page on true
where ${live}
order by page.${c(ledgerEntries.createdAt)} ${dir}, page.${c(ledgerEntries.id)} ${dir}`,
    },
    ledgerEntryOne: {
      doc: 'One ledger entry of a workspace; no row when the workspace holds no such entry.',
      slots: LEDGER_ONE_SLOTS,
      text: sql`
select ${jsonOf(ledgerEntries, 'l', LEDGER_ENTRY_FIELDS, {}, '')}::text as item
from ${t(ledgerEntries)} l
where ${c(ledgerEntries.id, 'l')} = ${entryId} and ${c(ledgerEntries.workspaceId, 'l')} = ${workspaceId} and ${live}`,
    },
    sessionOne: {
      doc:
        "One session of a workspace, as the session page's items are (its agent with the version it ran " +
        'on, conversation, person and ledger entry): the answer of the session write path. No row when ' +
        'the workspace holds no such session.',
      slots: SESSION_ONE_SLOTS,
      text: sql`
select ${sessionItem(sql`(select ${agentItem('    ')}
    from ${t(agents)} a, ${t(agentVersions)} v
    where ${c(agents.id, 'a')} = ${c(sessions.agentId, 's')} and ${c(agentVersions.id, 'v')} = ${c(sessions.agentVersionId, 's')})`)}::text as item,
  ${c(sessions.status, 's')} as status
from ${t(sessions)} s
where ${c(sessions.id, 's')} = ${sessionId} and ${c(sessions.workspaceId, 's')} = ${workspaceId} and ${live}`,
    },
  };
}

/**
 * The columns a created agent's answer is built from in the function (db/queries/create-agent.ts),
 * with `fromRowJson`: the same field lists as the agent page's.
 */
export function renderColumns(): Record<string, Column[]> {
  return {
    AGENT_COLUMNS: columnsOf(agents, AGENT_FIELDS),
    AGENT_VERSION_COLUMNS: columnsOf(agentVersions, AGENT_VERSION_FIELDS),
  };
}

/** A statement as a function of its slots returning sql-template-tag's `Sql`. */
function statementModule(name: string, { doc, slots, text }: Statement): string {
  const body = textOf(text);
  const rest = slots.reduce((s, n) => s.replaceAll(`\${${n}}`, ''), body);
  if (/[`\\]|\$\{/.test(rest)) throw new Error(`${name}: a backtick, backslash or \${ outside a slot`);
  const comment = doc.replace(/(.{1,96})(\s+|$)/g, ' * $1\n').trimEnd();
  const params = slots.map((s) => `${s}: Sql`).join(', ');
  return `/**\n${comment}\n */\nexport const ${name} = (${params}): Sql => sql\`${body}\`;\n`;
}

/** The generated module's text. */
export function itemsModule(): string {
  const statements = Object.entries(renderStatements())
    .map(([name, statement]) => statementModule(name, statement))
    .join('\n');
  const columns = Object.entries(renderColumns())
    .map(([name, list]) => `export const ${name}: readonly Column[] = ${JSON.stringify(list)};\n`)
    .join('\n');
  return (
    '// Generated by `npm run db:generate` from db/projections/items.ts: do not edit.\n\n' +
    "import sql, { type Sql } from 'sql-template-tag';\nimport type { Column } from './row-json.ts';\n\n" +
    `${statements}\n${columns}`
  );
}
