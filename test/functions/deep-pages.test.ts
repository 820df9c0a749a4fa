import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFSET_MAX } from '#contract/limits.ts';
import { scopes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { createId } from '#db/queries/ids.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build } from '#functions/ledger/list.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { expectProblem } from '#test/helpers/responses.ts';
import type { Tenant } from '#test/helpers/tenants.ts';
import { seedWorkspaces, shapeOf } from '../../bench/seed.ts';

// Every list pages through the same layer (functions/http/pagination.ts); the ledger is the one a
// small seed fills past OFFSET_MAX (ten metered entries a session).
describe('pages past the deepest offset', () => {
  const SESSIONS = 1_000;
  const entries = shapeOf(SESSIONS).ledgerEntries;
  let handle: DatabaseHandle;
  let list: ReturnType<typeof build>;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    list = build({ database: handle, logger: silentLogger });
    const [seeded] = await seedWorkspaces(handle.db, [
      { name: 'Deep', tag: 'deep', sessions: SESSIONS, principalId: createId() },
    ]);
    const workspaceId = seeded?.workspaceId as string;
    const key = await createApiKey(handle.db, { workspaceId, name: 'reader', scopes });
    tenant = { workspaceId, themeId: '', principalId: key.principalId, keyId: key.id, token: key.token };
  });
  afterAll(() => handle.close());

  const page = (query: string) =>
    list(apiEvent({ path: '/ledger', query, caller: tenant, scopes: 'usage:read' }));
  const idsOf = (result: { body: string }) =>
    (JSON.parse(result.body) as Array<{ id: string }>).map((e) => e.id);
  const linkQuery = (link: string | undefined) =>
    new URLSearchParams(/^<[^?]*\?([^>]*)>; rel="next"$/.exec(link ?? '')?.[1] ?? 'none');

  it('refuses an offset past OFFSET_MAX with a 400 naming offset and pointing to cursor', async () => {
    expect(entries).toBeGreaterThan(OFFSET_MAX + 50);
    const problem = expectProblem(await page(`limit=25&offset=${OFFSET_MAX + 1}`), 400, ['offset']);
    expect(problem.errors).toEqual([
      {
        path: 'offset',
        message: `must be at most ${OFFSET_MAX}: page deeper with cursor (the Link: rel="next" of the page before switches to one)`,
      },
    ]);
  });

  it('answers the deepest offset, linking onwards by cursor to the very rows the next offset would have held', async () => {
    const deepest = await page(`limit=25&offset=${OFFSET_MAX}&order=asc`);
    expect(deepest.statusCode).toBe(200);
    expect(idsOf(deepest)).toHaveLength(25);
    const next = linkQuery(deepest.headers.link);
    expect([...next.keys()].sort()).toEqual(['cursor', 'limit', 'order']);
    const byCursor = await page(next.toString());
    expect(byCursor.statusCode).toBe(200);
    // The same rows as one page further by offset, which the query no longer accepts: read them as
    // the tail of a wider page that starts within the bound.
    const wider = await page(`limit=50&offset=${OFFSET_MAX}&order=asc`);
    expect(idsOf(byCursor)).toEqual(idsOf(wider).slice(25));
    // And on by cursor from there.
    expect([...linkQuery(byCursor.headers.link).keys()].sort()).toEqual(['cursor', 'limit', 'order']);
  });

  it('links by offset while the next offset is within the bound, by cursor from the first that is not', async () => {
    const within = await page(`limit=25&offset=${OFFSET_MAX - 25}`);
    expect(linkQuery(within.headers.link).get('offset')).toBe(String(OFFSET_MAX));
    const past = await page(`limit=25&offset=${OFFSET_MAX - 24}`);
    const next = linkQuery(past.headers.link);
    expect(next.has('offset')).toBe(false);
    const wider = await page(`limit=50&offset=${OFFSET_MAX - 24}`);
    expect(idsOf(await page(next.toString()))).toEqual(idsOf(wider).slice(25));
  });
});
