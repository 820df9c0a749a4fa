import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '#contract/routes.ts';
import { integerParam, routeQuery } from '#contract/schemas/query.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { parseQuery } from '#functions/http/query.ts';
import { json } from '#functions/http/respond.ts';
import { route } from '#functions/http/route.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { expectProblem } from '#test/helpers/responses.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';

// route() with a declaration of its own (not a row of the table): what it parses, and in which order.
const row = {
  name: 'declared',
  method: 'POST',
  path: '/agents/{agentId}/versions/{versionId}',
  entry: 'functions/none.ts',
  scope: 'agents:write',
  summary: 'A route for this test',
} as const satisfies Route;
const query = routeQuery({ limit: integerParam(1, 10, 'How many.', 5) });
const Body = v.strictObject({ note: v.string() });
const AGENT = 'tz4a98xxat96iws9zmbrgj3a';
const VERSION = 'pfh0haxfpzowht3oi213cqos';

describe('route() and a declaration', () => {
  let handle: DatabaseHandle;
  let tenant: Tenant;
  beforeAll(async () => {
    handle = await freshDatabase();
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle.close());

  const declared = () =>
    route({ ...row, query, body: Body }, { database: handle, logger: silentLogger }, async (req) =>
      json(req.requestId, 200, { params: req.params, query: req.query, body: req.body }),
    );
  const event = (init: { path?: string; query?: string; body?: unknown; scopes?: string } = {}) =>
    apiEvent({
      method: 'POST',
      resource: row.path,
      path: init.path ?? `/agents/${AGENT}/versions/${VERSION}`,
      query: init.query,
      body: init.body,
      caller: tenant,
      scopes: init.scopes,
    });

  it('hands the handler the path parameters, the query with its defaults and the body, parsed', async () => {
    const answer = await declared()(event({ query: 'limit=7', body: { note: 'hi' } }));
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      params: { agentId: AGENT, versionId: VERSION },
      query: { limit: 7 },
      body: { note: 'hi' },
    });
    const defaults = await declared()(event({ body: { note: '' } }));
    expect(JSON.parse(defaults.body).query).toEqual({ limit: 5 });
  });

  it('answers the scope first, then the path (404 naming what it names), the query, then the body', async () => {
    const everythingWrong = {
      path: `/agents/${AGENT}/versions/not-an-id`,
      query: 'limit=99',
      body: { note: 1 },
    };
    expectProblem(await declared()(event({ ...everythingWrong, scopes: 'agents:read' })), 403);
    const notFound = await declared()(event(everythingWrong));
    expectProblem(notFound, 404);
    expect(JSON.parse(notFound.body).detail).toBe('No version with this id in this workspace.');
    expectProblem(await declared()(event({ ...everythingWrong, path: undefined })), 400, ['limit']);
    expectProblem(await declared()(event({ body: { note: 1 } })), 400, ['note']);
    const noJson = event({ body: { note: 'hi' } });
    noJson.headers['content-type'] = 'text/plain';
    expectProblem(await declared()(noJson), 415);
  });

  it('leaves a query and a body it was not told of to the handler, which may parse them itself', async () => {
    const byHand = route(row, { database: handle, logger: silentLogger }, async (req) =>
      json(req.requestId, 200, parseQuery(query.schema, query.params, req.event)),
    );
    const answer = await byHand(event({ query: 'limit=2', body: 'not checked' }));
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ limit: 2 });
  });
});
