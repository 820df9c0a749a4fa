import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { scopes } from '#contract/routes.ts';
import { openDatabase } from '#db/client.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { databaseUrl, serverUrlFromEnv } from './database.ts';
import type { Statement } from './gateway-process.ts';
import { median } from './stats.ts';

/**
 * `tsx bench/statement-cost.ts <results.json> [rounds] [connections]`: where a list statement's
 * cost goes, from a `--baseline` run's results. Each list operation's statement as the working tree
 * sends it, as the baseline sent it, and variants that each take one difference away (the live-key
 * guard, the parameters), run in turns, each on `connections` connections at once (1 by default):
 * the backends' CPU per execution (/proc, so a server on this machine), and EXPLAIN (ANALYZE,
 * BUFFERS)'s execution, planning, buffers and nodes.
 */
const [file, roundsArg, connectionsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/statement-cost.ts <results.json> [rounds] [connections]');
const run = JSON.parse(readFileSync(file, 'utf8')) as {
  options: { databaseName: string };
  results: Array<{ name: string; main: Statement; baseline?: { main?: Statement } }>;
};
const rounds = Number(roundsArg ?? 20);
/** Concurrent connections, each running the batch (the bench's load is 10): CPU summed over their backends. */
const connections = Number(connectionsArg ?? 1);
const url = databaseUrl(serverUrlFromEnv(), run.options.databaseName);
// The run's key is gone with the run: a live one of the same workspace for the guard to find.
const handle = await openDatabase({ kind: 'postgres', url, poolMax: 1 });
const workspaceId = String(run.results[0]?.main.parameters[0]);
const key = await createApiKey(handle.db, { workspaceId, name: 'bench statement-cost', scopes });
const sql = postgres(url, {
  max: connections,
  connection: { application_name: 'vaa-statement-cost' },
  prepare: false,
  onnotice: () => {},
});

const GUARD = /\n?where api_key_live\(\$4::varchar\)/;
const literal = (value: unknown) =>
  typeof value === 'number' ? `'${value}'` : `'${String(value).replace(/'/g, "''")}'`;
/** The statement with its parameters written in as literals, as the baseline wrote them. */
const inlined = ({ query, parameters }: Statement): Statement => ({
  query: query.replace(
    /\$(\d+)(::\w+)?/g,
    (_, n: string, cast = '') => `${literal(parameters[Number(n) - 1])}${cast}`,
  ),
  parameters: [],
});

/** Every untyped parameter cast to its value's type (`$1::varchar`, `$2::int`): none left for Postgres to infer. */
const typed = ({ query, parameters }: Statement): Statement => ({
  query: query.replace(
    /\$(\d+)(?!\d|::)/g,
    (match, n: string) => `${match}::${typeof parameters[Number(n) - 1] === 'number' ? 'int' : 'varchar'}`,
  ),
  parameters,
});

function variants(sent: Statement, baseline: Statement): Record<string, Statement> {
  const current = { ...sent, parameters: sent.parameters.map((p, i) => (i === 3 ? key.id : p)) };
  const unguarded = { query: current.query.replace(GUARD, ''), parameters: current.parameters.slice(0, 3) };
  return {
    baseline: baseline,
    'baseline + guard': {
      query: baseline.query.replace(
        /(\n\s*order by s\.created_at desc, s\.id desc\s*)$/,
        `\nwhere api_key_live(${literal(current.parameters[3])}::varchar)$1`,
      ),
      parameters: [],
    },
    current,
    'current, no guard': unguarded,
    'current, literals': inlined(current),
    'current, typed parameters': typed(current),
    'current, no guard, literals': inlined(unguarded),
  };
}

// Every connection open (and busy at once) before the backends are listed.
await Promise.all(Array.from({ length: connections }, () => sql`select pg_sleep(0.05)`));
const pids = (await sql`select pid from pg_stat_activity where application_name = 'vaa-statement-cost'`).map(
  (row) => Number(row.pid),
);
const backendTicks = async () => {
  let ticks = 0;
  for (const pid of pids) {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
};

interface Node {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Subplan Name'?: string;
  'CTE Name'?: string;
  'Actual Total Time': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  Plans?: Node[];
}
const nodes = (n: Node, depth = 0): Array<[number, string]> => [
  [
    n['Actual Total Time'] * n['Actual Loops'],
    `${'  '.repeat(depth)}${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? n['CTE Name'] ?? n['Subplan Name'] ?? ''} ` +
      `${(n['Actual Total Time'] * n['Actual Loops']).toFixed(2)} ms, hit ${n['Shared Hit Blocks']}`,
  ],
  ...(n.Plans ?? []).flatMap((c) => nodes(c, depth + 1)),
];

for (const result of run.results) {
  const before = result.baseline?.main;
  if (!before) continue;
  const all = variants(result.main, before);
  const taken = new Map(
    Object.keys(all).map((name) => [
      name,
      { cpu: [] as number[], exec: [] as number[], plan: [] as number[], hit: 0, top: '' },
    ]),
  );
  for (const statement of Object.values(all))
    await sql.unsafe(statement.query, statement.parameters as never[]); // warm
  const batch = 20;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? Object.entries(all).reverse() : Object.entries(all);
    for (const [name, statement] of order) {
      const t = taken.get(name);
      if (!t) continue;
      const ticks = await backendTicks();
      const loop = async () => {
        for (let i = 0; i < batch; i++) await sql.unsafe(statement.query, statement.parameters as never[]);
      };
      await Promise.all(Array.from({ length: connections }, loop));
      t.cpu.push((((await backendTicks()) - ticks) * 10) / (batch * connections));
      const [row] = await sql.unsafe(
        `explain (analyze, buffers, format json) ${statement.query}`,
        statement.parameters as never[],
      );
      const [plan] = (
        row as unknown as {
          'QUERY PLAN': Array<{ Plan: Node; 'Planning Time': number; 'Execution Time': number }>;
        }
      )['QUERY PLAN'];
      if (!plan) continue;
      t.exec.push(plan['Execution Time']);
      t.plan.push(plan['Planning Time']);
      t.hit = plan.Plan['Shared Hit Blocks'];
      if (round === rounds - 1)
        t.top = nodes(plan.Plan)
          .map(([, line]) => `      ${line}`)
          .join('\n');
    }
  }
  process.stdout.write(
    `${result.name} (${rounds} rounds in turns; CPU: backend ms per execution, ${batch} per reading on each of ${connections} connections)\n`,
  );
  for (const [name, t] of taken) {
    process.stdout.write(
      `  ${name.padEnd(28)} CPU ${median(t.cpu).toFixed(2)} ms  execution ${median(t.exec).toFixed(2)} ms  planning ${median(t.plan).toFixed(2)} ms  buffers hit ${t.hit}\n`,
    );
  }
  for (const [name, t] of taken)
    process.stdout.write(`  ${name}, last EXPLAIN's nodes (inclusive time × loops):\n${t.top}\n`);
}
await sql`delete from api_keys where id = ${key.id}`;
await sql.end();
await handle.close();
