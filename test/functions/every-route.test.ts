import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { buildWorld, routeKeys, routeRequests, sendTo, type World } from '#test/helpers/route-requests.ts';

// Every row of the route table answers its one valid request through the local gateway, on
// whichever database the run chose: the embedded pass of CI runs this file to cover each route once.
describe('every route, once, through the local gateway', () => {
  let database: DatabaseHandle;
  let gateway: Gateway;
  let world: World;

  beforeAll(async () => {
    database = await freshDatabase();
    gateway = await startGateway({ deps: { database, logger: silentLogger } });
    world = await buildWorld(database);
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.close();
  });

  it.each(routeKeys)('%s answers its valid request with its success status and a JSON body', async (key) => {
    const request = await routeRequests[key](world);
    const response = await sendTo(gateway.url, world, request);
    const text = await response.text();
    expect({ status: response.status, text: response.status === request.status ? '' : text }).toEqual({
      status: request.status,
      text: '',
    });
    if (response.status !== 204) {
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });
});
