import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_SLUG_MAX } from '#contract/limits.ts';
import { Agent } from '#contract/schemas/agent.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { build } from '#functions/agents/create.ts';
import { silentLogger } from '#functions/http/log.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { bodyOf } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

// Issue 27: after `"X 999999999"` existed, every new derived slug of "X" was a 409 (the next suffix
// was taken to be the largest 9-digit one + 1, which never fit the pattern again).
describe('a name cannot be made permanently unusable through its derived slugs', () => {
  let handle: DatabaseHandle;
  let createAgent: ReturnType<typeof build>;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    createAgent = build({ database: handle, logger: silentLogger });
  });
  beforeEach(async () => {
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const create = async (body: { name: string; slug?: string }) => {
    const result = await createAgent(apiEvent({ method: 'POST', path: '/agents', body, caller: tenant }));
    expect(result.statusCode, result.body).toBe(201);
    return bodyOf(Agent, result).slug;
  };

  it('creates "X" again after an agent named "X 999999999" exists', async () => {
    expect(await create({ name: 'X 999999999' })).toBe('x-999999999');
    expect(await create({ name: 'X' })).toBe('x');
    expect(await create({ name: 'X' })).toBe('x-2');
    expect(await create({ name: 'X' })).toBe('x-3');
  });

  it('takes the smallest free suffix whatever slugs exist: gaps, huge, zero-padded and non-numeric ones', async () => {
    for (const slug of ['x', 'x-2', 'x-4', 'x-1000000000', 'x-99999999999999999999', 'x-007', 'x-y', 'x-0']) {
      await create({ name: 'Other', slug });
    }
    expect(await create({ name: 'X' })).toBe('x-3');
    expect(await create({ name: 'X' })).toBe('x-5');
    expect(await create({ name: 'X' })).toBe('x-6');
  });

  it('stays within the slug limit when the longest base already has a 9-digit suffix', async () => {
    const name = 'a'.repeat(255);
    const first = await create({ name });
    expect(first.length).toBeLessThanOrEqual(AGENT_SLUG_MAX);
    await create({ name: 'Other', slug: `${first}-999999999` });
    const second = await create({ name });
    expect(second).toBe(`${first}-2`);
    expect(second.length).toBeLessThanOrEqual(AGENT_SLUG_MAX);
  });

  it('gives concurrent creates of one name distinct slugs after "X 999999999" exists', async () => {
    await create({ name: 'X 999999999' });
    await create({ name: 'X' });
    const slugs = await Promise.all(Array.from({ length: 12 }, () => create({ name: 'X' })));
    expect(new Set(slugs).size).toBe(12);
    expect(slugs.every((slug) => /^x-([2-9]|1[0-3])$/.test(slug))).toBe(true);
  });
});
