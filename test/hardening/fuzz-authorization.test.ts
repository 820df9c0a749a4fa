import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { generateToken } from '#db/queries/api-keys.ts';
import { revokeApiKey } from '#db/queries/manage-api-keys.ts';
import { silentLogger } from '#functions/http/log.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { authorizerContext, isAllowed } from '#test/helpers/policy.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import {
  type App,
  buildApp,
  checkAnswer,
  fuzzSeed,
  type RouteName,
  rowCounts,
  runs,
  Tally,
} from './support/app.ts';
import { anyText } from './support/arbitraries.ts';
import { authorizerEventFor, handlerOf, throughAuthorizer } from './support/gateway-flow.ts';

/** What a token may be turned into: every one but the untouched token must be refused. */
const damaged = (token: string) =>
  fc.oneof(
    fc
      .nat({ max: token.length - 1 })
      .map((i) => `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`),
    fc.nat({ max: token.length - 1 }).map((i) => token.slice(0, i)),
    fc.string({ minLength: 1, maxLength: 3 }).map((s) => `${token}${s}`),
    fc.constant(token.toUpperCase()),
    fc.constant(token.replace('vak_', 'VAK_')),
    fc.constant(token.slice(4)),
    fc.constant(`vak_${'A'.repeat(43)}`),
    fc.constant(generateToken()),
  );

describe('fuzzing the Authorization header', () => {
  let handle: DatabaseHandle;
  let app: App;
  let live: Tenant;
  let other: Tenant;
  let revoked: Tenant;
  let expired: Tenant;
  const tallies: Tally[] = [];

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    live = await createTenant(handle.db);
    other = await createTenant(handle.db);
    revoked = await createTenant(handle.db);
    await revokeApiKey(handle.db, revoked.keyId);
    expired = await createTenant(handle.db, { expiresAt: new Date(Date.now() - 1_000) });
  });
  afterAll(async () => {
    for (const tally of tallies) tally.report();
    await handle?.close();
  });

  /** A header and the tenant it must authenticate as, if any. */
  const header = () => {
    const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr');
    const spaces = fc.constantFrom(' ', '  ', '   ');
    const liveForm = fc
      .tuple(scheme, spaces, fc.constantFrom(live, other), fc.constantFrom('', ' ', '  '))
      .map(([s, sp, tenant, trail]) => ({
        value: `${s}${sp}${tenant.token}${trail}`,
        as: tenant as Tenant | undefined,
      }));
    const refused = fc
      .oneof(
        fc.constantFrom(revoked.token, expired.token).map((t) => `Bearer ${t}`),
        damaged(live.token).map((t) => `Bearer ${t}`),
        fc.constantFrom(
          live.token,
          `Bearer\t${live.token}`,
          ` Bearer ${live.token}`,
          `Bearer ${live.token},Bearer ${other.token}`,
          `Bearer ${live.token} ${other.token}`,
          `Basic ${Buffer.from(`x:${live.token}`).toString('base64')}`,
          `Token ${live.token}`,
          `Bearer`,
          `Bearer `,
          '',
          `Bearer ${live.token}\u0000`,
          `Bearer ${'vak_'.padEnd(200_000, 'A')}`,
        ),
        anyText,
        anyText.map((t) => `Bearer ${t}`),
      )
      .map((value) => ({ value, as: undefined as Tenant | undefined }));
    return fc.oneof({ weight: 1, arbitrary: liveForm }, { weight: 3, arbitrary: refused });
  };

  it('the authorizer allows exactly the live tokens, as their own workspace, and never throws', async () => {
    const seen = new Tally('authorizer, Authorization headers');
    tallies.push(seen);
    await fc.assert(
      fc.asyncProperty(header(), async ({ value, as }) => {
        const event = apiEvent({ path: '/agents', caller: null, headers: { authorization: value } });
        const decision = await app.authorize(authorizerEventFor(event));
        seen.record(isAllowed(decision) ? 200 : 403, value);
        expect(isAllowed(decision)).toBe(as !== undefined);
        if (as) {
          expect(decision.context).toEqual({
            workspaceId: as.workspaceId,
            principalId: as.principalId,
            keyId: as.keyId,
            scopes: scopes.join(' '),
            tier: 'standard',
            usageIdentifierKey: `vaw_${as.workspaceId}`,
          });
        } else {
          expect(decision.context).toEqual({});
        }
      }),
      { numRuns: runs(400), seed: fuzzSeed },
    );
  });

  it('a handler authenticating a deferred request itself agrees with the authorizer: 401 unless live', async () => {
    const seen = new Tally('deferred handlers, Authorization headers');
    tallies.push(seen);
    const before = await rowCounts(handle.db);
    let created = 0;
    await fc.assert(
      fc.asyncProperty(
        header(),
        fc.constantFrom<RouteName>('create-agent', 'list-agents', 'list-sessions'),
        async ({ value, as }, route) => {
          const event =
            route === 'create-agent'
              ? apiEvent({ method: 'POST', path: '/agents', body: { name: 'Deferred' }, caller: null })
              : apiEvent({ path: route === 'list-agents' ? '/agents' : '/sessions', caller: null });
          event.headers.authorization = value;
          event.requestContext.authorizer = authorizerContext({ deferred: 'database-unavailable' });
          const result = await handlerOf(app, route)(event);
          seen.record(result.statusCode, value);
          const answer = checkAnswer(route, result);
          if (!as) {
            expect(result.statusCode).toBe(401);
            return;
          }
          expect(result.statusCode).toBe(route === 'create-agent' ? 201 : 200);
          if (route === 'create-agent') {
            created++;
            expect((answer.body as { workspaceId: string }).workspaceId).toBe(as.workspaceId);
          }
        },
      ),
      { numRuns: runs(300), seed: fuzzSeed },
    );
    const after = await rowCounts(handle.db);
    expect(after.agents - before.agents).toBe(created);
  });

  it('through authorizer and handler, a refused header never reaches the handler and a live one acts as its own workspace', async () => {
    const seen = new Tally('authorizer then handler, Authorization headers');
    tallies.push(seen);
    await fc.assert(
      fc.asyncProperty(header(), async ({ value, as }) => {
        const event = apiEvent({
          path: '/agents',
          query: 'limit=250',
          caller: null,
          headers: { authorization: value },
        });
        const answer = await throughAuthorizer(app, 'list-agents', event);
        if (answer.kind === 'gateway') {
          seen.record(answer.statusCode, value);
          expect(as).toBeUndefined();
          expect(answer.statusCode).toBe(value === '' ? 401 : 403);
          return;
        }
        seen.record(answer.result.statusCode, value);
        expect(as).toBeDefined();
        const agents = checkAnswer('list-agents', answer.result).body as { workspaceId: string }[];
        for (const agent of agents) expect(agent.workspaceId).toBe(as?.workspaceId);
      }),
      { numRuns: runs(200), seed: fuzzSeed },
    );
  });
});
