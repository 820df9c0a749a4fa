import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminAnswer, AdminResults, MAX_DEMO_SESSIONS } from '#contract/admin.ts';
import { TRIAL_CREDIT } from '#contract/limits.ts';
import { scopes } from '#contract/routes.ts';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { authenticate, hashToken } from '#db/queries/api-keys.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { adminSettingsFromEnv, build, execute } from '#functions/admin.ts';
import { createLogger } from '#functions/http/log.ts';
import { freshDatabase } from '#test/helpers/database.ts';

const preview = { stage: 'feature-x', demoSeed: true };
const prod = { stage: 'prod', demoSeed: false };

/** A successful answer's result, checked against the command's result schema. */
function resultOf<C extends keyof typeof AdminResults>(answer: AdminAnswer, command: C) {
  if (!answer.ok) throw new Error(`expected ok, got ${JSON.stringify(answer.error)}`);
  expect(answer.command).toBe(command);
  return v.parse(AdminResults[command], answer.result);
}

describe('the admin function', () => {
  let handle: DatabaseHandle;
  let lines: Record<string, unknown>[];
  let admin: ReturnType<typeof build>;
  let refusing: ReturnType<typeof build>;
  const logger = createLogger((line) => lines.push(JSON.parse(line)));
  const count = async (table: string) =>
    rowsOf<{ n: number }>(await handle.db.execute(sql.raw(`select count(*)::int as n from ${table}`)))[0]?.n;

  beforeAll(async () => {
    handle = await freshDatabase();
    admin = build({ database: handle, logger }, preview);
    refusing = build({ database: handle, logger }, prod);
  });
  afterAll(() => handle.close());
  beforeEach(() => {
    lines = [];
  });

  describe('workspace.create and workspace.list', () => {
    it('creates a workspace with its default theme and lists it, oldest first', async () => {
      const { workspace } = resultOf(
        await admin({ command: 'workspace.create', name: '  Acme  ' }),
        'workspace.create',
      );
      expect(workspace).toEqual({
        id: expect.any(String),
        name: 'Acme',
        tier: 'standard',
        createdAt: expect.any(String),
      });
      const [theme] = rowsOf<{ is_default: boolean }>(
        await handle.db.execute(sql`select is_default from themes where workspace_id = ${workspace.id}`),
      );
      expect(theme?.is_default).toBe(true);
      resultOf(await admin({ command: 'workspace.create', name: 'Beta' }), 'workspace.create');
      const { workspaces } = resultOf(await admin({ command: 'workspace.list' }), 'workspace.list');
      expect(workspaces.map((w) => w.name).slice(-2)).toEqual(['Acme', 'Beta']);
      expect(workspaces[workspaces.length - 2]).toEqual(workspace);
    });

    it.each([
      [{ command: 'workspace.create' }, 'name', 'is required'],
      [{ command: 'workspace.create', name: '   ' }, 'name', 'must be 1 to 255 characters'],
      [{ command: 'workspace.create', name: 'x'.repeat(256) }, 'name', 'must be 1 to 255 characters'],
      [{ command: 'workspace.create', name: 42 }, 'name', expect.stringMatching(/string/)],
      [{ command: 'workspace.create', name: 'A', owner: 'me' }, 'owner', expect.any(String)],
      [{ command: 'workspace.list', all: true }, 'all', expect.any(String)],
      [
        { command: 'workspace.tier', workspaceId: 'x', tier: 'gold' },
        'tier',
        'must be one of free, standard, pro',
      ],
      [{ command: 'workspace.tier', tier: 'pro' }, 'workspaceId', 'is required'],
    ])('refuses %j as an invalid command naming %s', async (event, path, message) => {
      const before = await count('workspaces');
      const answer = await admin(event);
      expect(answer).toEqual({
        ok: false,
        error: {
          code: 'invalid-command',
          message: expect.stringContaining(path),
          issues: [{ path, message }],
        },
      });
      expect(await count('workspaces')).toBe(before);
    });
  });

  describe('workspace.tier', () => {
    it('moves a workspace to another tier, which the authorizer lookup then returns', async () => {
      const { workspace } = resultOf(
        await admin({ command: 'workspace.create', name: 'Tiered' }),
        'workspace.create',
      );
      const minted = resultOf(
        await admin({ command: 'token.create', workspaceId: workspace.id }),
        'token.create',
      );
      const moved = resultOf(
        await admin({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'free' }),
        'workspace.tier',
      );
      expect(moved).toEqual({ workspace: { ...workspace, tier: 'free' }, previousTier: 'standard' });
      expect(await authenticate(handle.sql, minted.token)).toMatchObject({ tier: 'free' });
      const { workspaces } = resultOf(await admin({ command: 'workspace.list' }), 'workspace.list');
      expect(workspaces.find((w) => w.id === workspace.id)?.tier).toBe('free');
      expect(lines).toContainEqual(
        expect.objectContaining({
          command: 'workspace.tier',
          workspaceId: workspace.id,
          outcome: 'ok',
        }),
      );
    });

    it('answers not-found for an unknown workspace', async () => {
      const answer = await admin({ command: 'workspace.tier', workspaceId: 'nosuchworkspace', tier: 'pro' });
      expect(answer).toEqual({
        ok: false,
        error: { code: 'not-found', message: 'no workspace "nosuchworkspace"' },
      });
    });

    it('places the API key in the usage plans: standard on create, the new tier on a move', async () => {
      const noPool = { reconcile: async () => 0, removeAll: async () => 0 };
      const placed: string[] = [];
      const withPlans = build(
        { database: handle, logger },
        {
          ...preview,
          usagePlanKeys: { ...noPool, place: async (id, tier) => void placed.push(`${id} ${tier}`) },
        },
      );
      const { workspace } = resultOf(
        await withPlans({ command: 'workspace.create', name: 'Planned' }),
        'workspace.create',
      );
      resultOf(
        await withPlans({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'pro' }),
        'workspace.tier',
      );
      expect(placed).toEqual([`${workspace.id} standard`, `${workspace.id} pro`]);
      const failing = build(
        { database: handle, logger },
        { ...preview, usagePlanKeys: { ...noPool, place: () => Promise.reject(new Error('throttled')) } },
      );
      const answer = await failing({ command: 'workspace.tier', workspaceId: workspace.id, tier: 'free' });
      expect(answer).toEqual({ ok: false, error: { code: 'internal', message: expect.any(String) } });
    });
  });

  describe('token.create, token.list and token.revoke', () => {
    let workspaceId: string;
    beforeAll(async () => {
      workspaceId = resultOf(await admin({ command: 'workspace.create', name: 'Keys' }), 'workspace.create')
        .workspace.id;
    });

    it('mints a key with every scope that never expires, whose token authenticates', async () => {
      const result = resultOf(await admin({ command: 'token.create', workspaceId }), 'token.create');
      expect(result.key).toMatchObject({
        name: 'CLI key',
        scopes: [...scopes],
        status: 'active',
        expiresAt: null,
      });
      expect(await authenticate(handle.sql, result.token)).toMatchObject({
        workspaceId,
        keyId: result.key.id,
      });
    });

    it('mints a named key with the given scopes (once each) and lifetime', async () => {
      const before = Date.now();
      const { key } = resultOf(
        await admin({
          command: 'token.create',
          workspaceId,
          name: 'reader',
          scopes: ['sessions:read', 'sessions:read'],
          expiresIn: '30d',
        }),
        'token.create',
      );
      expect(key).toMatchObject({ name: 'reader', scopes: ['sessions:read'], status: 'active' });
      const expires = Date.parse(key.expiresAt ?? '');
      expect(expires).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
      expect(expires).toBeLessThan(Date.now() + 30 * 86_400_000 + 1000);
    });

    it.each([
      [{ workspaceId: 'not a cuid' }, 'workspaceId'],
      [{ scopes: ['agents:delete'] }, 'scopes.0'],
      [{ scopes: [] }, 'scopes'],
      [{ scopes: 'agents:read' }, 'scopes'],
      [{ expiresIn: '3w' }, 'expiresIn'],
      [{ expiresIn: '3651d' }, 'expiresIn'],
      [{ name: '' }, 'name'],
      [{ token: 'vak_mine' }, 'token'],
    ])('refuses %j as an invalid command naming %s', async (fields, path) => {
      const before = await count('api_keys');
      const answer = await admin({ command: 'token.create', workspaceId, ...fields });
      expect(answer.ok).toBe(false);
      expect(!answer.ok && answer.error.code).toBe('invalid-command');
      expect(!answer.ok && answer.error.issues?.map((i) => i.path)).toEqual([path]);
      expect(await count('api_keys')).toBe(before);
    });

    it('names an unknown workspace, for create and list', async () => {
      const error = { code: 'not-found', message: 'no workspace "nosuchworkspace"' };
      expect(await admin({ command: 'token.create', workspaceId: 'nosuchworkspace' })).toEqual({
        ok: false,
        error,
      });
      expect(await admin({ command: 'token.list', workspaceId: 'nosuchworkspace' })).toEqual({
        ok: false,
        error,
      });
    });

    it('lists the keys with their status, never a token or a hash', async () => {
      const { key: revoked } = resultOf(
        await admin({ command: 'token.create', workspaceId }),
        'token.create',
      );
      expect(resultOf(await admin({ command: 'token.revoke', keyId: revoked.id }), 'token.revoke')).toEqual({
        keyId: revoked.id,
        workspaceId,
      });
      const answer = await admin({ command: 'token.list', workspaceId });
      const { keys } = resultOf(answer, 'token.list');
      expect(keys.find((k) => k.id === revoked.id)).toMatchObject({
        status: 'revoked',
        revokedAt: expect.any(String),
      });
      expect(keys.filter((k) => k.status === 'active')).toHaveLength(2);
      expect(JSON.stringify(answer)).not.toMatch(/vak_|[0-9a-f]{64}/);
      // Seen from a day past its 30-day lifetime, the reader key has expired.
      const later = await execute(
        handle,
        { command: 'token.list', workspaceId },
        preview,
        Date.now() + 31 * 86_400_000,
      );
      const statuses = (later.result as { keys: { name: string; status: string }[] }).keys.map((k) => [
        k.name,
        k.status,
      ]);
      expect(statuses).toContainEqual(['reader', 'expired']);
    });

    it('revokes a live key once, then names it as not found', async () => {
      const { key } = resultOf(await admin({ command: 'token.create', workspaceId }), 'token.create');
      expect((await admin({ command: 'token.revoke', keyId: key.id })).ok).toBe(true);
      expect(await admin({ command: 'token.revoke', keyId: key.id })).toEqual({
        ok: false,
        error: { code: 'not-found', message: `no active key "${key.id}" (unknown or already revoked)` },
      });
      expect((await admin({ command: 'token.revoke' })).ok).toBe(false);
      expect((await admin({ command: 'token.revoke', keyId: 'Not-An-Id!' })).ok).toBe(false);
    });

    it('writes one audit line per command: command, workspace, key id, never the token or its hash', async () => {
      const { key, token } = resultOf(await admin({ command: 'token.create', workspaceId }), 'token.create');
      await admin({ command: 'token.revoke', keyId: key.id });
      await admin({ command: 'token.revoke', keyId: key.id });
      await admin({ command: 'token.create', workspaceId, scopes: ['nope'] });
      await admin({ command: 'rm -rf', workspaceId });
      expect(lines).toEqual([
        expect.objectContaining({
          message: 'admin command',
          command: 'token.create',
          workspaceId,
          keyId: key.id,
          outcome: 'ok',
        }),
        expect.objectContaining({ command: 'token.revoke', workspaceId, keyId: key.id, outcome: 'ok' }),
        expect.objectContaining({ command: 'token.revoke', keyId: key.id, outcome: 'not-found' }),
        expect.objectContaining({ command: 'token.create', outcome: 'invalid-command' }),
        expect.objectContaining({ command: '(invalid)', outcome: 'invalid-command' }),
      ]);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(token);
      expect(text).not.toContain(hashToken(token));
    });
  });

  describe('ledger.credit and ledger.threshold', () => {
    const workspace = async (name: string) =>
      resultOf(await admin({ command: 'workspace.create', name }), 'workspace.create').workspace.id;
    const credit = (workspaceId: string, amount: number, idempotencyKey: string) =>
      admin({
        command: 'ledger.credit',
        workspaceId,
        amount,
        reason: 'SUBSCRIPTION_REFILL',
        reasonDetails: 'Plan renewal',
        idempotencyKey,
      });
    const entriesOf = async (workspaceId: string) =>
      rowsOf<{ id: string; amount: number; reason: string; reason_details: string; idempotency_key: string }>(
        await handle.db.execute(sql`select id, amount, reason, reason_details, idempotency_key from ledger_entries
          where workspace_id = ${workspaceId} and reason <> 'INITIAL_BALANCE'`),
      );

    it('credits a workspace once per idempotency key: a replay, even of another amount, books nothing', async () => {
      const id = await workspace('Credited');
      const first = resultOf(await credit(id, 250, 'renewal-7'), 'ledger.credit');
      expect(first).toEqual({
        workspaceId: id,
        entryId: expect.stringMatching(/^[a-z0-9]{24}$/),
        booked: true,
        balance: TRIAL_CREDIT + 250,
      });
      const replay = resultOf(await credit(id, 999, 'renewal-7'), 'ledger.credit');
      expect(replay).toEqual({ ...first, booked: false });
      expect(await entriesOf(id)).toEqual([
        {
          id: first.entryId,
          amount: 250,
          reason: 'SUBSCRIPTION_REFILL',
          reason_details: 'Plan renewal',
          idempotency_key: 'renewal-7',
        },
      ]);
      // The same key in another workspace is another credit.
      const other = await workspace('Other');
      expect(resultOf(await credit(other, 5, 'renewal-7'), 'ledger.credit').booked).toBe(true);
      expect(resultOf(await credit(id, 1, 'renewal-8'), 'ledger.credit').balance).toBe(TRIAL_CREDIT + 251);
      expect(lines.filter((l) => l.command === 'ledger.credit').map((l) => l.workspaceId)).toEqual([
        id,
        id,
        other,
        id,
      ]);
    });

    it('sets the low-balance threshold, answering the balance', async () => {
      const id = await workspace('Thresholded');
      const set = resultOf(
        await admin({ command: 'ledger.threshold', workspaceId: id, threshold: 2500 }),
        'ledger.threshold',
      );
      expect(set).toEqual({ workspaceId: id, threshold: 2500, balance: TRIAL_CREDIT });
      const [row] = rowsOf<{ low_balance_threshold: number }>(
        await handle.db.execute(
          sql`select low_balance_threshold from ledger_balances where workspace_id = ${id}`,
        ),
      );
      expect(row?.low_balance_threshold).toBe(2500);
    });

    it('names an unknown workspace, booking nothing', async () => {
      const before = await count('ledger_entries');
      const unknown = { ok: false, error: { code: 'not-found', message: 'no workspace "nosuchworkspace"' } };
      expect(await credit('nosuchworkspace', 5, 'k')).toEqual(unknown);
      expect(
        await admin({ command: 'ledger.threshold', workspaceId: 'nosuchworkspace', threshold: 1 }),
      ).toEqual(unknown);
      expect(await count('ledger_entries')).toBe(before);
    });

    const valid = {
      command: 'ledger.credit',
      workspaceId: 'x',
      amount: 5,
      reason: 'PURCHASE_REFILL',
      idempotencyKey: 'k',
    };
    it.each([
      [{ ...valid, amount: 0 }, 'amount', 'must be from 1 to 2147483647'],
      [{ ...valid, amount: -5 }, 'amount', 'must be from 1 to 2147483647'],
      [{ ...valid, amount: 2.5 }, 'amount', 'must be a whole number'],
      [
        { ...valid, reason: 'VOICE_USAGE' },
        'reason',
        'must be one of INITIAL_BALANCE, PURCHASE_REFILL, SUBSCRIPTION_REFILL, REDEMPTION_CODE',
      ],
      [{ ...valid, idempotencyKey: undefined }, 'idempotencyKey', 'is required'],
      [
        { ...valid, idempotencyKey: 'a key' },
        'idempotencyKey',
        expect.stringContaining('visible ASCII characters'),
      ],
      [
        { command: 'ledger.threshold', workspaceId: 'x', threshold: 0.5 },
        'threshold',
        'must be a whole number',
      ],
    ])('refuses %j as an invalid command naming %s, booking nothing', async (event, path, message) => {
      const before = await count('ledger_entries');
      expect(await admin(event)).toEqual({
        ok: false,
        error: {
          code: 'invalid-command',
          message: expect.stringContaining(path),
          issues: [{ path, message }],
        },
      });
      expect(await count('ledger_entries')).toBe(before);
    });
  });

  describe('seed.demo', () => {
    it('seeds a new demo workspace on a preview, with a token that authenticates', async () => {
      const result = resultOf(await admin({ command: 'seed.demo', name: 'Demo', sessions: 5 }), 'seed.demo');
      expect(result.counts.sessions).toBe(5);
      expect(result.scopes).toEqual([...scopes]);
      expect(await authenticate(handle.sql, result.token)).toMatchObject({ workspaceId: result.workspaceId });
      expect(lines).toEqual([
        expect.objectContaining({
          command: 'seed.demo',
          workspaceId: result.workspaceId,
          keyId: result.keyId,
        }),
      ]);
    });

    it('is refused on prod with a clear error, writing nothing', async () => {
      const before = await count('workspaces');
      expect(await refusing({ command: 'seed.demo' })).toEqual({
        ok: false,
        error: {
          code: 'refused',
          message:
            'seed.demo is refused on stage "prod": it keeps real data, and demo data is for previews only',
        },
      });
      expect(await count('workspaces')).toBe(before);
    });

    it('is refused when the stack did not say otherwise (DEMO_SEED unset)', () => {
      expect(adminSettingsFromEnv({})).toEqual({ stage: 'unknown', demoSeed: false });
      expect(adminSettingsFromEnv({ STAGE: 'pr-1', DEMO_SEED: 'allowed' })).toEqual({
        stage: 'pr-1',
        demoSeed: true,
      });
    });

    it.each([
      [{ sessions: 0 }],
      [{ sessions: 1.5 }],
      [{ sessions: '60' }],
      [{ sessions: MAX_DEMO_SESSIONS + 1 }],
    ])('refuses %j as an invalid command', async (fields) => {
      const answer = await admin({ command: 'seed.demo', ...fields });
      expect(!answer.ok && answer.error.issues?.map((i) => i.path)).toEqual(['sessions']);
    });
  });

  it.each([
    [null],
    [[]],
    ['workspace.list'],
    [42],
    [{}],
    [{ command: 'workspace.delete' }],
    [{ command: ['workspace.list'] }],
    // As JSON.parse reads an invoke payload: an own `__proto__` key, not a prototype.
    [JSON.parse('{"__proto__":{"command":"workspace.list"}}')],
    [JSON.parse('{"command":"workspace.list","__proto__":{}}')],
  ])('answers %j with a structured error, never a crash', async (event) => {
    const answer = await admin(event);
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'invalid-command', message: expect.any(String) },
    });
  });

  it('answers "unavailable" when the database cannot be reached, never throwing', async () => {
    const down = await openDatabase({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:1/none',
      poolMax: 1,
    });
    try {
      const answer = await build({ database: down, logger }, preview)({ command: 'workspace.list' });
      expect(answer).toEqual({
        ok: false,
        error: { code: 'unavailable', message: 'the database is unavailable (resuming?); try again shortly' },
      });
      expect(lines).toEqual([
        expect.objectContaining({ level: 'warn', command: 'workspace.list', outcome: 'unavailable' }),
      ]);
    } finally {
      await down.close();
    }
  });

  it('answers "internal" for an unexpected failure, without its details', async () => {
    const broken = await freshDatabase();
    await broken.close();
    const answer = await build({ database: broken, logger }, preview)({ command: 'workspace.list' });
    expect(answer).toMatchObject({
      ok: false,
      error: { code: expect.stringMatching(/^(internal|unavailable)$/) },
    });
    expect(JSON.stringify(answer)).not.toMatch(/select|pglite|postgres/i);
  });
});
