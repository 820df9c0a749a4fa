import { integer, timestamp, varchar } from 'drizzle-orm/pg-core';
import { ID_MAX } from '#contract/limits.ts';
import { createId } from '../queries/ids.ts';

/** Identifiers are cuid2, at most 24 characters (spec: Conventions). */
export const id = (name: string) => varchar(name, { length: ID_MAX });
export const primaryId = () =>
  id('id')
    .primaryKey()
    .$defaultFn(() => createId());

/** Millisecond precision: what ISO 8601 output with `.sss` can carry without loss. */
export const timestamptz = (name: string) =>
  timestamp(name, { precision: 3, withTimezone: true, mode: 'string' });

export const auditTimes = () => ({
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  updatedAt: timestamptz('updated_at').notNull().defaultNow(),
});

export const auditActors = () => ({
  createdBy: id('created_by'),
  updatedBy: id('updated_by'),
});

/** 32-bit integer columns: Postgres `integer` is exactly the spec's range. */
export const int32 = integer;
