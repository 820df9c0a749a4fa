import { createId } from '@paralleldrive/cuid2';
import { scopes as allScopes, type Scope } from '#contract/routes.ts';
import { type TierName, usageShardOf } from '#contract/tiers.ts';
import type { Database } from '#db/client.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { createWorkspace } from '#db/queries/workspaces.ts';

export interface Tenant {
  workspaceId: string;
  themeId: string;
  principalId: string;
  keyId: string;
  token: string;
}

/** A new workspace with an API key holding `scopes` (all by default). */
export async function createTenant(
  db: Database,
  options: { name?: string; scopes?: readonly Scope[]; expiresAt?: Date; id?: string } = {},
): Promise<Tenant> {
  const workspace = await createWorkspace(db, options.name ?? 'Test workspace', options.id);
  const key = await createApiKey(db, {
    workspaceId: workspace.id,
    name: 'test key',
    scopes: options.scopes ?? allScopes,
    expiresAt: options.expiresAt,
  });
  return {
    workspaceId: workspace.id,
    themeId: workspace.themeId,
    principalId: key.principalId,
    keyId: key.id,
    token: key.token,
  };
}

/** A new tenant whose workspace is metered on the same usage key as `of`'s in `tier` (contract/tiers.ts). */
export async function createKeyMate(
  db: Database,
  of: Tenant,
  tier: TierName,
  options: { name?: string } = {},
): Promise<Tenant> {
  const shard = usageShardOf(of.workspaceId, tier);
  let id = createId();
  while (usageShardOf(id, tier) !== shard) id = createId();
  return createTenant(db, { ...options, id });
}
