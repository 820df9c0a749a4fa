import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, unique, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { DEFAULT_TIER } from '#contract/tiers.ts';
import { auditTimes, id, primaryId, timestamptz } from './columns.ts';
import { workspaceTier } from './enums.ts';

export const workspaces = pgTable('workspaces', {
  id: primaryId(),
  ...auditTimes(),
  name: varchar('name', { length: 255 }).notNull(),
  /** Its limits (contract/tiers.ts); the admin function changes it. */
  tier: workspaceTier('tier').notNull().default(DEFAULT_TIER),
});

/** Every workspace has exactly one default theme: new agent versions take its id. */
export const themes = pgTable(
  'themes',
  {
    id: primaryId(),
    ...auditTimes(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 255 }).notNull(),
    isDefault: boolean('is_default').notNull().default(false),
  },
  (t) => [
    uniqueIndex('themes_one_default_per_workspace').on(t.workspaceId).where(sql`${t.isDefault}`),
    unique('themes_workspace_id').on(t.workspaceId, t.id),
  ],
);

/** Opaque bearer keys; only the SHA-256 of the token is kept. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: primaryId(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    principalId: id('principal_id').notNull(),
    name: varchar('name', { length: 255 }).notNull(),
    tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
    scopes: text('scopes').array().notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    expiresAt: timestamptz('expires_at'),
    revokedAt: timestamptz('revoked_at'),
    lastUsedAt: timestamptz('last_used_at'),
  },
  (t) => [index('api_keys_workspace').on(t.workspaceId, t.createdAt)],
);
