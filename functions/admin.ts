/**
 * The admin function: workspaces, API keys and (on previews) the demo seed, for a deployed stage
 * whose database only its VPC can reach. It has no HTTP route; only `lambda:InvokeFunction`
 * reaches it, which the stack grants to nobody (docs/deploying.md). The CLIs send it the commands
 * of contract/admin.ts with `--stage`, and run the same `execute` locally without it.
 */
import * as v from 'valibot';
import {
  AdminCommand,
  type AdminCommandName,
  type AdminError,
  type AdminKey,
  type AdminResult,
  type AdminAnswer as Answer,
  adminCommandNames,
  lifetimeMs,
} from '#contract/admin.ts';
import { scopes as allScopes } from '#contract/routes.ts';
import { DEFAULT_TIER } from '#contract/tiers.ts';
import { type Database, withDrizzle } from '#db/client.ts';
import { isDatabaseUnavailable, sqlState } from '#db/errors.ts';
import { creditWorkspace, setLowBalanceThreshold } from '#db/queries/ledger-admin.ts';
import { createApiKey, listApiKeys, revokeApiKeyOf } from '#db/queries/manage-api-keys.ts';
import { setWorkspaceTier, workspaceTiersAfter } from '#db/queries/workspace-tiers.ts';
import { createWorkspace, listWorkspaces, workspaceExists } from '#db/queries/workspaces.ts';
import { seedDemoWorkspace } from '#db/seed/demo-workspace.ts';
import { type Deps, lambda } from './deps.ts';
import { describeIssue } from './http/validation.ts';
import {
  type UsagePlanKeys,
  type UsageShard,
  usagePlanKeysFromEnv,
  usageShardsOf,
} from './usage-plan-keys.ts';
import { usagePlanKeysThroughFromEnv } from './usage-plan-keys-remote.ts';

export interface AdminSettings {
  /** The stage's name, for messages. */
  stage: string;
  /** Whether `seed.demo` may run: previews yes, a stage that keeps data (prod) never. */
  demoSeed: boolean;
  /**
   * Keeps each workspace's API Gateway API key in its tier's usage plan (functions/usage-plan-keys.ts);
   * absent locally, where the gateway reads the tier from the authorizer's answer instead.
   */
  usagePlanKeys?: UsagePlanKeys;
}

/**
 * The stack sets STAGE and DEMO_SEED; without them seeding is refused (fail closed). The API keys'
 * placement is on with USAGE_PLAN_KEYS_FUNCTION (deployed: the key function outside the VPC,
 * infra/constructs/usage-plans.ts) or USAGE_PLAN_IDS (API Gateway called directly, locally).
 */
export const adminSettingsFromEnv = (env = process.env): AdminSettings => ({
  stage: env.STAGE ?? 'unknown',
  demoSeed: env.DEMO_SEED === 'allowed',
  usagePlanKeys: usagePlanKeysThroughFromEnv(env) ?? usagePlanKeysFromEnv(env),
});

/** Workspaces read per statement by `usage.reconcile`. */
const RECONCILE_PAGE = 5_000;

/** A command that cannot be done as asked: answered with its code and message, exit 1 in a CLI. */
export class AdminFailure extends Error {
  constructor(
    readonly code: AdminError['code'],
    message: string,
  ) {
    super(message);
  }
}

const noWorkspace = (id: string) => new AdminFailure('not-found', `no workspace "${id}"`);

/** Drivers hand timestamps back as Postgres text or as Dates; answers carry ISO 8601 UTC. */
type Time = string | Date;
const isoOf = (value: Time) => new Date(value).toISOString();
const iso = (value: Time | null) => (value === null ? null : isoOf(value));

interface KeyRow {
  id: string;
  name: string;
  scopes: string[];
  createdAt: Time;
  expiresAt: Time | null;
  revokedAt: Time | null;
  lastUsedAt: Time | null;
}
function keyOf(row: KeyRow, now: number): AdminKey {
  const expiresAt = iso(row.expiresAt);
  const status = row.revokedAt ? 'revoked' : expiresAt && Date.parse(expiresAt) <= now ? 'expired' : 'active';
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    status,
    createdAt: isoOf(row.createdAt),
    expiresAt,
    revokedAt: iso(row.revokedAt),
    lastUsedAt: iso(row.lastUsedAt),
  };
}

/** A command's result, and what its audit line names. */
type Outcome<C extends AdminCommandName> = { result: AdminResult<C>; workspaceId?: string; keyId?: string };

/**
 * Runs one valid command. Throws AdminFailure for what the caller can fix; database errors pass
 * through (the Lambda answer says `unavailable`/`internal`, a local CLI explains them).
 */
export async function execute(
  { db }: { db: Database },
  command: AdminCommand,
  settings: AdminSettings,
  now = Date.now(),
): Promise<Outcome<AdminCommandName>> {
  switch (command.command) {
    case 'workspace.create': {
      const workspace = await createWorkspace(db, command.name);
      await settings.usagePlanKeys?.place(workspace.id, DEFAULT_TIER);
      return {
        result: {
          workspace: {
            id: workspace.id,
            name: command.name,
            tier: DEFAULT_TIER,
            createdAt: workspace.createdAt,
          },
        },
        workspaceId: workspace.id,
      };
    }
    case 'workspace.tier': {
      const { workspaceId, tier } = command;
      const changed = await setWorkspaceTier(db, workspaceId, tier);
      if (!changed) throw noWorkspace(workspaceId);
      // After the row: a failure here answers an error, and running the command again heals it.
      await settings.usagePlanKeys?.place(workspaceId, tier);
      const { previousTier, createdAt, ...workspace } = changed;
      return {
        result: { workspace: { ...workspace, createdAt: isoOf(createdAt) }, previousTier },
        workspaceId,
      };
    }
    case 'workspace.list': {
      const rows = await listWorkspaces(db);
      return { result: { workspaces: rows.map((w) => ({ ...w, createdAt: isoOf(w.createdAt) })) } };
    }
    case 'token.create': {
      const { workspaceId } = command;
      if (!(await workspaceExists(db, workspaceId))) throw noWorkspace(workspaceId);
      const ms = command.expiresIn === undefined ? undefined : lifetimeMs(command.expiresIn);
      const input = {
        workspaceId,
        name: command.name ?? 'CLI key',
        scopes: command.scopes ? [...new Set(command.scopes)] : [...allScopes],
        expiresAt: ms === undefined ? null : new Date(now + ms),
      };
      const key = await createApiKey(db, input).catch((error: unknown) => {
        // The workspace was deleted in between: still "no such workspace", not a crash.
        throw sqlState(error) === '23503' ? noWorkspace(workspaceId) : error;
      });
      const row = { ...input, id: key.id, createdAt: key.createdAt, revokedAt: null, lastUsedAt: null };
      return {
        result: { workspaceId, key: keyOf(row, now), token: key.token },
        workspaceId,
        keyId: key.id,
      };
    }
    case 'token.list': {
      const { workspaceId } = command;
      if (!(await workspaceExists(db, workspaceId))) throw noWorkspace(workspaceId);
      const rows = await listApiKeys(db, workspaceId);
      return { result: { workspaceId, keys: rows.map((row) => keyOf(row, now)) }, workspaceId };
    }
    case 'token.revoke': {
      const revoked = await revokeApiKeyOf(db, command.keyId);
      if (!revoked) {
        throw new AdminFailure('not-found', `no active key "${command.keyId}" (unknown or already revoked)`);
      }
      return {
        result: { keyId: command.keyId, workspaceId: revoked.workspaceId },
        ...revoked,
        keyId: command.keyId,
      };
    }
    case 'ledger.credit': {
      const { workspaceId, reasonDetails, ...credit } = command;
      const done = await creditWorkspace(db, {
        workspaceId,
        reasonDetails: reasonDetails ?? null,
        ...credit,
      });
      if (!done) throw noWorkspace(workspaceId);
      return { result: { workspaceId, ...done }, workspaceId };
    }
    case 'ledger.threshold': {
      const { workspaceId, threshold } = command;
      const done = await setLowBalanceThreshold(db, workspaceId, threshold);
      if (!done) throw noWorkspace(workspaceId);
      return { result: { workspaceId, threshold, balance: done.balance }, workspaceId };
    }
    case 'usage.reconcile': {
      // Paged by id: a million workspaces are a few hundred pages, the keys at most the pool's size.
      const shards = new Map<string, UsageShard>();
      let after = '';
      for (;;) {
        const page = await workspaceTiersAfter(db, after, RECONCILE_PAGE);
        for (const shard of usageShardsOf(page)) shards.set(`${shard.tier}/${shard.shard}`, shard);
        if (page.length < RECONCILE_PAGE) break;
        after = page[page.length - 1]?.id ?? after;
      }
      const repaired = (await settings.usagePlanKeys?.reconcile(shards.values())) ?? 0;
      return { result: { keys: shards.size + 1, repaired } };
    }
    case 'seed.demo': {
      if (!settings.demoSeed) {
        throw new AdminFailure(
          'refused',
          `seed.demo is refused on stage "${settings.stage}": it keeps real data, and demo data is for previews only`,
        );
      }
      const seeded = await seedDemoWorkspace(db, { name: command.name, sessions: command.sessions });
      await settings.usagePlanKeys?.place(seeded.workspaceId, DEFAULT_TIER);
      return {
        result: {
          workspaceId: seeded.workspaceId,
          keyId: seeded.keyId,
          scopes: [...allScopes],
          counts: seeded.counts,
          token: seeded.token,
        },
        workspaceId: seeded.workspaceId,
        keyId: seeded.keyId,
      };
    }
  }
}

/** The event's command name for the audit line, only when it is one (never echo arbitrary input). */
const commandNameOf = (event: unknown) => {
  const name = (event as { command?: unknown } | null)?.command;
  return (adminCommandNames as readonly unknown[]).includes(name) ? (name as AdminCommandName) : '(invalid)';
};

/**
 * The Lambda handler: any event in, a JSON answer out, never a thrown error. Every command leaves
 * one audit line (command, workspace, key id, outcome) and never a token or its hash.
 */
export const build =
  (deps: Deps, settings: AdminSettings = adminSettingsFromEnv()) =>
  async (event: unknown): Promise<Answer> => {
    const command = commandNameOf(event);
    const parsed = v.safeParse(AdminCommand, event);
    if (!parsed.success) {
      const issues = parsed.issues.map((issue) => describeIssue(issue));
      const error: AdminError = {
        code: 'invalid-command',
        message: `not a valid admin command: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
        issues,
      };
      deps.logger('warn', 'admin command', { command, outcome: error.code, issues });
      return { ok: false, error };
    }
    try {
      // Outside any request: no deadline (the seed may take a while), no blind retry of a write.
      const { result, workspaceId, keyId } = await execute(
        withDrizzle(deps.database),
        parsed.output,
        settings,
      );
      deps.logger('info', 'admin command', { command, workspaceId, keyId, outcome: 'ok' });
      return { ok: true, command: parsed.output.command, result };
    } catch (failure) {
      const error = answerFor(failure);
      const target = parsed.output as { workspaceId?: string; keyId?: string };
      deps.logger(error.code === 'internal' ? 'error' : 'warn', 'admin command', {
        command,
        workspaceId: target.workspaceId,
        keyId: target.keyId,
        outcome: error.code,
        ...(failure instanceof AdminFailure ? {} : { error: failure }),
      });
      return { ok: false, error };
    }
  };

function answerFor(failure: unknown): AdminError {
  if (failure instanceof AdminFailure) return { code: failure.code, message: failure.message };
  if (isDatabaseUnavailable(failure)) {
    return { code: 'unavailable', message: 'the database is unavailable (resuming?); try again shortly' };
  }
  return { code: 'internal', message: 'unexpected error; the function log has the details' };
}

export const handler = lambda(build);
