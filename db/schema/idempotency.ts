import { sql } from 'drizzle-orm';
import { check, integer, jsonb, pgTable, primaryKey, text, varchar } from 'drizzle-orm/pg-core';
import { id, timestamptz } from './columns.ts';
import { workspaces } from './workspaces.ts';

/** Remembers the first answer to an `Idempotency-Key` for 24 h, per workspace. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    key: varchar('key', { length: 255 }).notNull(),
    requestHash: varchar('request_hash', { length: 64 }).notNull(),
    // null while the first request is still in flight
    responseStatus: integer('response_status'),
    // The exact bytes first sent, so a replay is byte-for-byte the same answer.
    responseBody: text('response_body'),
    // The answer's own headers (an ETag), replayed with it; null when it had none.
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.key] }),
    check(
      'idempotency_keys_response_complete',
      sql`(${t.responseStatus} is null) = (${t.responseBody} is null)`,
    ),
  ],
);
