import { createHash, randomBytes } from 'node:crypto';
import { createId } from '@paralleldrive/cuid2';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { apiKeys } from '../schema/index.ts';
import { rowsOf } from './rows.ts';

export const TOKEN_PREFIX = 'vak_';

/** `vak_` + 32 random bytes, base64url: recognisable in logs and secret scanners, unguessable. */
export const generateToken = () => `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

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

export interface Principal {
  keyId: string;
  workspaceId: string;
  principalId: string;
  scopes: string[];
}

/** The live key for a token (not revoked, not expired), marking it used; one statement. */
export async function authenticate(db: Database, token: string): Promise<Principal | undefined> {
  const rows = rowsOf<Principal>(
    await db.execute(sql`
      update ${apiKeys} set last_used_at = now()
      where token_hash = ${hashToken(token)} and revoked_at is null and (expires_at is null or expires_at > now())
      returning id as "keyId", workspace_id as "workspaceId", principal_id as "principalId", scopes`),
  );
  return rows[0];
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
 * Revokes a key, answering its workspace; undefined when no such live key. Cached authorizer
 * answers expire within the TTL.
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
