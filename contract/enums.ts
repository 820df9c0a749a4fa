// The spec's enumerations, once: API facts as plain constants. The Valibot schemas read them here
// and db/schema/enums.ts builds the Postgres enum types from them.
export const agentStatus = ['DRAFT', 'ARCHIVED', 'PUBLISHED', 'COMPLETED'] as const;
export const sessionType = ['INBOUND_CALL', 'WEB_VOICE'] as const;
export const sessionStatus = ['PENDING', 'IN_PROGRESS', 'COMPLETED'] as const;
export const incentiveType = ['CASH', 'NONE'] as const;
export const currencyCode = ['USD'] as const;
export const sessionLength = [
  'FIVE_MINUTES',
  'TEN_MINUTES',
  'FIFTEEN_MINUTES',
  'THIRTY_MINUTES',
  'FORTY_FIVE_MINUTES',
] as const;
export const language = ['en', 'es', 'fr'] as const;
export const inputMode = ['SMS', 'PHONE', 'WEB_CHAT', 'WEB_VOICE'] as const;
export const authenticationMode = ['NONE', 'CODE'] as const;
export const ledgerReason = [
  'INITIAL_BALANCE',
  'PURCHASE_REFILL',
  'SUBSCRIPTION_REFILL',
  'REDEMPTION_CODE',
  'VOICE_USAGE',
  'SMS_USAGE',
] as const;
/** The reasons that add credit (POST /ledger/credits); the others record usage. */
export const refillReasons = [
  'INITIAL_BALANCE',
  'PURCHASE_REFILL',
  'SUBSCRIPTION_REFILL',
  'REDEMPTION_CODE',
] as const;
/**
 * What a change to an agent did, as its history records it: the name of the operation (the route
 * table's `name`) that made it.
 */
export const agentChangeOperation = [
  'create-agent',
  'update-agent',
  'create-version',
  'publish-agent',
  'archive-agent',
  'unarchive-agent',
] as const;
/** Why the stale-session sweep completed a session (its `completedMeta.reason`). */
export const completionReasons = ['STALE_HEARTBEAT', 'NEVER_STARTED'] as const;
/** The outbox's event types (GET /events, the EventBridge bus): `<resource>.<what happened>`. */
export const eventTypes = [
  'agent.created',
  'agent.published',
  'agent.archived',
  'agent.unarchived',
  'session.created',
  'session.started',
  'session.completed',
  'usage.booked',
  'balance.low',
  'webhook_endpoint.disabled',
] as const;
/** A webhook endpoint's state: `auto_disabled` when deliveries failed for days or it answered 410. */
export const webhookEndpointStatus = ['enabled', 'disabled', 'auto_disabled'] as const;
/** Where a delivery stands: `failed` has a retry scheduled, `dead` has none left. */
export const webhookDeliveryStatus = ['pending', 'succeeded', 'failed', 'dead'] as const;
/** Why a delivery exists: a feed event, a test, or a redelivery of an earlier one. */
export const webhookDeliveryKind = ['event', 'test', 'redelivery'] as const;
