import { createId } from '@paralleldrive/cuid2';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { apiKeys } from '../schema/index.ts';
import { generateToken, hashToken } from './api-keys.ts';

// Issuing, listing and revoking keys: the tools' and the admin function's, through Drizzle.

export interface NewApiKey {
  workspaceId: string;
  name: string;
  scopes: readonly string[];
  expiresAt?: Date | null;
  principalId?: string;
}

/** Stores only the hash; the token is returned once, here, and never again. */
export async function createApiKey(db: Database, input: NewApiKey) {
  const token = generateToken();
  const [key] = await db
    .insert(apiKeys)
    .values({
      workspaceId: input.workspaceId,
      principalId: input.principalId ?? createId(),
      name: input.name,
      tokenHash: hashToken(token),
      scopes: [...input.scopes],
      expiresAt: input.expiresAt ? input.expiresAt.toISOString() : null,
    })
    .returning({ id: apiKeys.id, principalId: apiKeys.principalId, createdAt: apiKeys.createdAt });
  if (!key) throw new Error('api key insert returned no row');
  return { ...key, token };
}

export function listApiKeys(db: Database, workspaceId: string) {
  return db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      principalId: apiKeys.principalId,
      scopes: apiKeys.scopes,
      createdAt: apiKeys.createdAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.workspaceId, workspaceId))
    .orderBy(desc(apiKeys.createdAt));
}

/**
 * Revokes a key, answering its workspace; undefined when no such live key. Its next request is
 * refused though an authorizer answer for it may still be cached: every route's statement checks
 * the key (api-keys.ts `keyIsLive`).
 */
export async function revokeApiKeyOf(
  db: Database,
  keyId: string,
): Promise<{ workspaceId: string } | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ workspaceId: apiKeys.workspaceId });
  return row;
}

/** Revokes a key; false when no such live key. */
export async function revokeApiKey(db: Database, keyId: string): Promise<boolean> {
  return (await revokeApiKeyOf(db, keyId)) !== undefined;
}
