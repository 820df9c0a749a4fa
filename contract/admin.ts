/**
 * The admin function's commands and answers (functions/admin.ts): what the CLIs send it, locally
 * or through `lambda:InvokeFunction`, and what it answers. Commands are strict: an unknown field
 * or command is refused, never ignored.
 */
import * as v from 'valibot';
import { refillReasons } from './enums.ts';
import { NAME_MAX } from './limits.ts';
import { scopes } from './routes.ts';
import { choiceOf, Id, readableName, Timestamp } from './schemas/common.ts';
import { IdempotencyKey } from './schemas/headers.ts';
import { TierSchema } from './tiers.ts';

const MINUTE_MS = 60_000;
const UNIT_MS = { m: MINUTE_MS, h: 60 * MINUTE_MS, d: 24 * 60 * MINUTE_MS } as const;
/** A key lives at most this long (10 years): an expiry is a promise, not a decoration. */
export const MAX_KEY_LIFETIME_MS = 10 * 365 * UNIT_MS.d;
/**
 * The demo seed's size bounds, the same for `npm run db:seed` and `seed.demo`. Each session is
 * recorded through the write path (about ten statements each), so this many must fit the admin
 * function's minute with room for a paused preview database to resume (docs/decisions.md).
 */
export const MAX_DEMO_SESSIONS = 1_000;

/** `30d`, `12h`, `90m` → milliseconds; undefined when not such a lifetime (or beyond 10 years). */
export function lifetimeMs(text: string): number | undefined {
  const match = /^([1-9]\d{0,6})([dhm])$/.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_KEY_LIFETIME_MS ? ms : undefined;
}

const name = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, `must be 1 to ${NAME_MAX} characters`),
  v.maxLength(NAME_MAX, `must be 1 to ${NAME_MAX} characters`),
  ...readableName,
);
const Scope = choiceOf(scopes);
const Lifetime = v.pipe(
  v.string(),
  v.check(
    (text) => lifetimeMs(text) !== undefined,
    'must be a positive number of days, hours or minutes up to 10 years (e.g. 30d, 12h, 90m)',
  ),
);

export const WorkspaceCreate = v.strictObject({ command: v.literal('workspace.create'), name });
export const WorkspaceList = v.strictObject({ command: v.literal('workspace.list') });
/** Moves a workspace to another tier (contract/tiers.ts): its limits change on its next requests. */
export const WorkspaceTier = v.strictObject({
  command: v.literal('workspace.tier'),
  workspaceId: Id,
  tier: TierSchema,
});
export const TokenCreate = v.strictObject({
  command: v.literal('token.create'),
  workspaceId: Id,
  name: v.optional(name),
  /** Default: every scope. */
  scopes: v.optional(v.pipe(v.array(Scope), v.minLength(1, 'needs at least one scope'))),
  /** Default: the key never expires. */
  expiresIn: v.optional(Lifetime),
});
export const TokenList = v.strictObject({ command: v.literal('token.list'), workspaceId: Id });
export const TokenRevoke = v.strictObject({ command: v.literal('token.revoke'), keyId: Id });
/** Previews only: a stage that keeps data (prod) refuses it. */
export const SeedDemo = v.strictObject({
  command: v.literal('seed.demo'),
  name: v.optional(name),
  sessions: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be a whole number'),
      v.minValue(1, `must be from 1 to ${MAX_DEMO_SESSIONS}`),
      v.maxValue(MAX_DEMO_SESSIONS, `must be from 1 to ${MAX_DEMO_SESSIONS}`),
    ),
  ),
});

/** Adds credit to a workspace (a refill entry), once per `idempotencyKey` as POST /ledger/credits does. */
export const LedgerCredit = v.strictObject({
  command: v.literal('ledger.credit'),
  workspaceId: Id,
  amount: v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(1, 'must be from 1 to 2147483647'),
    v.maxValue(2147483647, 'must be from 1 to 2147483647'),
  ),
  reason: v.picklist(refillReasons, `must be one of ${refillReasons.join(', ')}`),
  reasonDetails: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255), ...readableName)),
  idempotencyKey: IdempotencyKey,
});
/** Sets the balance under which a workspace's `balance.low` event fires. */
export const LedgerThreshold = v.strictObject({
  command: v.literal('ledger.threshold'),
  workspaceId: Id,
  threshold: v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(-2147483648),
    v.maxValue(2147483647),
  ),
});

/**
 * Every workspace's usage key exists and is in its tier's plan: what a failed placement left out is
 * repaired. The schedule sends it (infra/constructs/schedules.ts); an operator may too.
 */
export const UsageReconcile = v.strictObject({ command: v.literal('usage.reconcile') });

export const AdminCommand = v.variant('command', [
  WorkspaceCreate,
  WorkspaceList,
  WorkspaceTier,
  TokenCreate,
  TokenList,
  TokenRevoke,
  SeedDemo,
  LedgerCredit,
  LedgerThreshold,
  UsageReconcile,
]);
export type AdminCommand = v.InferOutput<typeof AdminCommand>;
export type AdminCommandName = AdminCommand['command'];
export const adminCommandNames = AdminCommand.options.map((o) => o.entries.command.literal);

const Workspace = v.strictObject({ id: Id, name: v.string(), tier: TierSchema, createdAt: Timestamp });
const KeyStatus = v.picklist(['active', 'revoked', 'expired']);
const Key = v.strictObject({
  id: Id,
  name: v.string(),
  scopes: v.array(v.string()),
  status: KeyStatus,
  createdAt: Timestamp,
  expiresAt: v.nullable(Timestamp),
  revokedAt: v.nullable(Timestamp),
  /** Marked at most once a minute (db/queries/api-keys.ts): accurate to the minute. */
  lastUsedAt: v.nullable(Timestamp),
});
/** A bearer token, shown once: in the answer to the command that minted it, never again. */
const Token = v.pipe(v.string(), v.startsWith('vak_'));

/** What each command answers when it succeeds. */
export const AdminResults = {
  'workspace.create': v.strictObject({ workspace: Workspace }),
  'workspace.list': v.strictObject({ workspaces: v.array(Workspace) }),
  'workspace.tier': v.strictObject({ workspace: Workspace, previousTier: TierSchema }),
  'token.create': v.strictObject({ workspaceId: Id, key: Key, token: Token }),
  'token.list': v.strictObject({ workspaceId: Id, keys: v.array(Key) }),
  'token.revoke': v.strictObject({ keyId: Id, workspaceId: Id }),
  'seed.demo': v.strictObject({
    workspaceId: Id,
    keyId: Id,
    scopes: v.array(v.string()),
    counts: v.record(v.string(), v.number()),
    token: Token,
  }),
  'ledger.credit': v.strictObject({
    workspaceId: Id,
    entryId: Id,
    booked: v.boolean(),
    balance: v.number(),
  }),
  'ledger.threshold': v.strictObject({ workspaceId: Id, threshold: v.number(), balance: v.number() }),
  /** `keys`: the keys the workspaces are metered on, the deferred one included; `repaired`: made or put back. */
  'usage.reconcile': v.strictObject({ keys: v.number(), repaired: v.number() }),
} as const satisfies Record<AdminCommandName, v.GenericSchema>;
export type AdminResult<C extends AdminCommandName = AdminCommandName> = v.InferOutput<
  (typeof AdminResults)[C]
>;
export type AdminKey = v.InferOutput<typeof Key>;

/**
 * Why a command failed: `invalid-command` (the event is not a valid command, `issues` says where),
 * `not-found`, `refused` (not on this stage), `unavailable` (the database: try again), `internal`.
 */
export const adminErrorCodes = [
  'invalid-command',
  'not-found',
  'refused',
  'unavailable',
  'internal',
] as const;
export const AdminError = v.strictObject({
  code: v.picklist(adminErrorCodes),
  message: v.string(),
  issues: v.optional(v.array(v.strictObject({ path: v.string(), message: v.string() }))),
});
export type AdminError = v.InferOutput<typeof AdminError>;

/** Every answer: `{ ok: true, result }` or `{ ok: false, error }`, always JSON, never a thrown error. */
export const AdminAnswer = v.variant('ok', [
  v.strictObject({ ok: v.literal(true), command: v.picklist(adminCommandNames), result: v.unknown() }),
  v.strictObject({ ok: v.literal(false), error: AdminError }),
]);
export type AdminAnswer =
  | { ok: true; command: AdminCommandName; result: AdminResult }
  | { ok: false; error: AdminError };
