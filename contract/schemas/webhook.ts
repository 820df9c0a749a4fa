import * as v from 'valibot';
import { eventTypes, webhookDeliveryKind, webhookDeliveryStatus, webhookEndpointStatus } from '../enums.ts';
import { FreeFormObject, Id, Timestamp } from './common.ts';

// The webhook routes' answers (docs/api.md, "Webhooks").

export const WebhookEndpoint = v.strictObject({
  id: Id,
  url: v.string(),
  description: v.string(),
  enabledEvents: v.array(v.string()),
  agentIds: v.nullable(v.array(Id)),
  metadata: FreeFormObject,
  status: v.picklist(webhookEndpointStatus),
  /** Why it is not enabled: null while enabled. */
  disabledReason: v.nullable(v.string()),
  consecutiveFailures: v.pipe(v.number(), v.integer()),
  lastSuccessAt: v.nullable(Timestamp),
  /** The first failure since the last success; null after a success. */
  firstFailureAt: v.nullable(Timestamp),
  /** While a rotation's grace runs, the old secret signs too, until then. */
  previousSecretExpiresAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = v.InferOutput<typeof WebhookEndpoint>;

/** The answer to a create or a rotation: the only time the signing secret is shown. */
export const WebhookEndpointWithSecret = v.strictObject({
  ...WebhookEndpoint.entries,
  secret: v.pipe(v.string(), v.startsWith('whsec_')),
});

export const WebhookEndpointList = v.array(WebhookEndpoint);

export const WebhookAttempt = v.strictObject({
  at: Timestamp,
  /** null: no HTTP answer (refused address, timeout, connection closed). */
  statusCode: v.nullable(v.pipe(v.number(), v.integer())),
  durationMs: v.pipe(v.number(), v.integer()),
  /** The first 1 KiB of the answer's body. */
  response: v.nullable(v.string()),
  error: v.nullable(v.string()),
});

export const WebhookDelivery = v.strictObject({
  id: Id,
  endpointId: Id,
  /** The `webhook-id` header: the event's id (GET /events), the same on every attempt and redelivery. */
  eventId: v.pipe(v.string(), v.uuid()),
  eventType: v.picklist(eventTypes),
  kind: v.picklist(webhookDeliveryKind),
  status: v.picklist(webhookDeliveryStatus),
  attemptCount: v.pipe(v.number(), v.integer()),
  nextAttemptAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookDelivery = v.InferOutput<typeof WebhookDelivery>;

export const WebhookDeliveryList = v.array(WebhookDelivery);

export const WebhookDeliveryDetail = v.strictObject({
  ...WebhookDelivery.entries,
  attempts: v.array(WebhookAttempt),
});
export type WebhookDeliveryDetail = v.InferOutput<typeof WebhookDeliveryDetail>;

export const WebhookRecovery = v.strictObject({
  /** Deliveries queued (new, or failed ones due again now). */
  queued: v.pipe(v.number(), v.integer()),
});
