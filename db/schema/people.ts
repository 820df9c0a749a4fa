import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  jsonb,
  pgTable,
  unique,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { auditTimes, id, primaryId, timestamptz } from './columns.ts';
import { workspaces } from './workspaces.ts';

export const persons = pgTable(
  'persons',
  {
    id: primaryId(),
    ...auditTimes(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    properties: jsonb('properties').notNull().default({}),
    firstSeenAt: timestamptz('first_seen_at').notNull().defaultNow(),
    lastSeenAt: timestamptz('last_seen_at').notNull().defaultNow(),
    identifiedAt: timestamptz('identified_at'),
    deletedAt: timestamptz('deleted_at'),
    email: varchar('email', { length: 255 }),
    phone: varchar('phone', { length: 17 }),
    rootPersonId: id('root_person_id').notNull(),
    mergedBy: id('merged_by'),
    mergedAt: timestamptz('merged_at'),
    mergeMeta: jsonb('merge_meta').notNull().default({}),
  },
  (t) => [
    // E.164 shape, as the spec states it.
    check('persons_phone_e164', sql`${t.phone} ~ '^\\+[1-9][0-9]{1,15}$'`),
    check('persons_email_shape', sql`${t.email} ~ '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$'`),
    check('persons_properties_object', sql`jsonb_typeof(${t.properties}) = 'object'`),
    check('persons_merge_meta_object', sql`jsonb_typeof(${t.mergeMeta}) = 'object'`),
    unique('persons_workspace_id').on(t.workspaceId, t.id),
    // One live person per email and per phone in a workspace (merged-away and deleted ones aside);
    // POST /sessions finds the person by email, else by phone, through them (db/queries/create-session.ts).
    uniqueIndex('persons_workspace_email')
      .on(t.workspaceId, t.email)
      .where(sql`${t.deletedAt} is null and ${t.id} = ${t.rootPersonId}`),
    uniqueIndex('persons_workspace_phone')
      .on(t.workspaceId, t.phone)
      .where(sql`${t.deletedAt} is null and ${t.id} = ${t.rootPersonId}`),
  ],
);

export const conversations = pgTable(
  'conversations',
  {
    id: primaryId(),
    ...auditTimes(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    personId: id('person_id').notNull(),
    name: varchar('name', { length: 255 }).notNull(),
    isDemo: boolean('is_demo').notNull().default(false),
    lastViewedAt: timestamptz('last_viewed_at'),
    lastViewedBy: id('last_viewed_by'),
    lastSessionEndedAt: timestamptz('last_session_ended_at'),
    archivedAt: timestamptz('archived_at'),
    archivedBy: id('archived_by'),
  },
  (t) => [
    unique('conversations_workspace_id').on(t.workspaceId, t.id),
    foreignKey({
      name: 'conversations_person_fk',
      columns: [t.workspaceId, t.personId],
      foreignColumns: [persons.workspaceId, persons.id],
    }),
  ],
);
