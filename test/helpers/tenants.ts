import { scopes as allScopes, type Scope } from '#contract/routes.ts';
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
  options: { name?: string; scopes?: readonly Scope[]; expiresAt?: Date } = {},
): Promise<Tenant> {
  const workspace = await createWorkspace(db, options.name ?? 'Test workspace');
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
