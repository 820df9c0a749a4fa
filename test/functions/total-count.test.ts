import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildAgents } from '#functions/agents/list.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build as buildSessions } from '#functions/sessions/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { insertAgent, insertSession } from '#test/helpers/fixtures.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

const READS = 40;

// Issue 27: X-Total-Count disagreed with the items of the same answer while writes happened (the
// count and the page were two statements). Each whole list fits one page, so every answer's count
// must equal its number of items, however the writes interleave with the reads.
describe('X-Total-Count agrees with the page of the same answer while writes happen', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;
  let agent: { agentId: string; versionIds: string[] };

  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
    agent = await insertAgent(handle.db, tenant);
  });
  afterAll(() => handle.close());

  /** Reads `path` READS times while `write` runs until the reads are done; each answer's count and items. */
  async function readWhileWriting(path: string, write: (n: number) => Promise<unknown>) {
    const list = (path === '/agents' ? buildAgents : buildSessions)({
      database: handle,
      logger: silentLogger,
    });
    let reading = true;
    let writes = 0;
    const writer = (async () => {
      while (reading) await write(++writes);
    })();
    const answers: { total: number; items: number }[] = [];
    try {
      for (let i = 0; i < READS; i++) {
        const result = await list(apiEvent({ path, query: 'limit=250&includeTotal=true', caller: tenant }));
        expect(result.statusCode, result.body).toBe(200);
        const items = (JSON.parse(result.body) as unknown[]).length;
        answers.push({ total: Number(result.headers?.['x-total-count']), items });
      }
    } finally {
      reading = false;
      await writer;
    }
    return { answers, writes };
  }

  it('for GET /agents', async () => {
    const { answers, writes } = await readWhileWriting('/agents', (n) =>
      insertAgent(handle.db, tenant, { n }),
    );
    expect(writes).toBeGreaterThan(1);
    expect(answers.filter((a) => a.total !== a.items)).toEqual([]);
    // The writes were seen: the lists grew while they were read.
    expect(answers.at(-1)?.total).toBeGreaterThan(answers[0]?.total ?? 0);
  });

  it('for GET /sessions', async () => {
    const { answers, writes } = await readWhileWriting('/sessions', (n) =>
      insertSession(handle.db, tenant, agent, { n, ledger: n % 2 === 0 }),
    );
    expect(writes).toBeGreaterThan(1);
    expect(answers.filter((a) => a.total !== a.items)).toEqual([]);
    expect(answers.at(-1)?.total).toBeGreaterThan(answers[0]?.total ?? 0);
  });

  it('answers the total with an empty page past the end', async () => {
    const list = buildSessions({ database: handle, logger: silentLogger });
    const result = await list(
      apiEvent({ path: '/sessions', query: 'limit=5&offset=10000&includeTotal=true', caller: tenant }),
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual([]);
    expect(Number(result.headers?.['x-total-count'])).toBeGreaterThan(0);
  });
});
