import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { WEBHOOK_DESCRIPTION_MAX, WEBHOOK_URL_MAX } from '#contract/limits.ts';
import { auditActors, auditTimes, id, primaryId, timestamptz } from './columns.ts';
import { webhookDeliveryKind, webhookDeliveryStatus, webhookEndpointStatus } from './enums.ts';
import { workspaces } from './workspaces.ts';

/**
 * A workspace's webhook endpoint. Its signing secret is stored sealed (`v1.<keyId>.<AES-GCM>`,
 * functions/webhooks/secrets.ts), never in clear; during a rotation's grace the previous one too.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: primaryId(),
    ...auditTimes(),
    ...auditActors(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    url: varchar('url', { length: WEBHOOK_URL_MAX }).notNull(),
    description: varchar('description', { length: WEBHOOK_DESCRIPTION_MAX }).notNull().default(''),
    /** Event types sent, `*` for all. */
    enabledEvents: text('enabled_events').array().notNull(),
    /** Only these agents' events; null: every event. */
    agentIds: text('agent_ids').array(),
    metadata: jsonb('metadata').notNull().default({}),
    status: webhookEndpointStatus('status').notNull().default('enabled'),
    disabledReason: text('disabled_reason'),
    secretSealed: text('secret_sealed').notNull(),
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastSuccessAt: timestamptz('last_success_at'),
    firstFailureAt: timestamptz('first_failure_at'),
  },
  (t) => [
    // Serves GET /webhook-endpoints and the relay's fan-out (a workspace's enabled endpoints).
    index('webhook_endpoints_workspace_list').on(t.workspaceId, t.createdAt, t.id),
  ],
);

/**
 * One delivery: an event to an endpoint (once per pair: the relay and a recovery insert it at most
 * once), a test, or a redelivery. `payload` is the exact body signed and sent on every attempt.
 * The database is the queue: the worker claims due rows (`locked_until` is its lease).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: primaryId(),
    ...auditTimes(),
    workspaceId: id('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    endpointId: id('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The `webhook-id`: the event's id. */
    eventId: uuid('event_id').notNull(),
    /** The event's place in the feed (null for a test): a recovery queues in feed order. */
    eventSeq: bigint('event_seq', { mode: 'number' }),
    eventType: varchar('event_type', { length: 64 }).notNull(),
    kind: webhookDeliveryKind('kind').notNull(),
    payload: text('payload').notNull(),
    status: webhookDeliveryStatus('status').notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at'),
    lockedUntil: timestamptz('locked_until'),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_once').on(t.endpointId, t.eventId).where(sql`${t.kind} = 'event'`),
    // What is due, across endpoints.
    index('webhook_deliveries_due').on(t.nextAttemptAt).where(sql`${t.status} in ('pending', 'failed')`),
    // The worker's claim: each endpoint's next due deliveries in order, read up to its in-flight
    // bound, so a claim costs the same with a backlog of ten or of a million.
    index('webhook_deliveries_endpoint_due')
      .on(t.endpointId, t.nextAttemptAt, t.eventSeq, t.id)
      .where(sql`${t.status} in ('pending', 'failed')`),
    // The deliveries leased now (in flight): few, counted per endpoint by every claim.
    index('webhook_deliveries_leased')
      .on(t.lockedUntil)
      .where(sql`${t.status} in ('pending', 'failed') and ${t.lockedUntil} is not null`),
    // Serves GET /webhook-endpoints/{id}/deliveries.
    index('webhook_deliveries_endpoint_list').on(t.endpointId, t.createdAt, t.id),
    // The foreign key's own index: a workspace's delete cascades through it.
    index('webhook_deliveries_workspace').on(t.workspaceId),
  ],
);

/** Every attempt of a delivery: what the receiver answered (its first 1 KiB), or the error. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: id('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    at: timestamptz('at').notNull().defaultNow(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    response: text('response'),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.id)],
);
