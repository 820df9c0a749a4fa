import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { build as buildCreate } from '#functions/agents/create.ts';
import { silentLogger } from '#functions/http/log.ts';
import type { ApiEvent } from '#functions/http/types.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

/** The event with its header names as another client might send them. */
const recased = (event: ApiEvent, recase: (name: string) => string): ApiEvent => ({
  ...event,
  headers: Object.fromEntries(Object.entries(event.headers).map(([name, value]) => [recase(name), value])),
});

describe('header names in any case (a REST API passes them as sent)', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;
  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  it.each([
    ['Title-Case', (n: string) => n.replace(/(^|-)([a-z])/g, (_, dash, c: string) => dash + c.toUpperCase())],
    ['UPPER CASE', (n: string) => n.toUpperCase()],
  ])('reads Content-Type and Idempotency-Key in %s', async (_, recase) => {
    const create = buildCreate({ database: handle, logger: silentLogger });
    const event = apiEvent({
      method: 'POST',
      path: '/agents',
      body: { name: `Case ${recase('x')}` },
      caller: tenant,
      headers: { 'idempotency-key': `case-${recase('k')}` },
    });
    const first = await create(recased(event, recase));
    expect(first.statusCode).toBe(201);
    const again = await create(recased(event, recase));
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const wrongType = recased(
      apiEvent({ ...{ method: 'POST', path: '/agents', body: { name: 'X' }, caller: tenant } }),
      recase,
    );
    wrongType.headers[recase('content-type')] = 'text/plain';
    expect((await create(wrongType)).statusCode).toBe(415);
  });
});
