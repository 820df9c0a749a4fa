import { pgEnum } from 'drizzle-orm/pg-core';
import * as values from '#contract/enums.ts';
import { tierNames } from '#contract/tiers.ts';

// The Postgres enum types, built from the contract's values so the two cannot drift.
export const agentStatus = pgEnum('agent_status', values.agentStatus);
export const sessionType = pgEnum('session_type', values.sessionType);
export const sessionStatus = pgEnum('session_status', values.sessionStatus);
export const incentiveType = pgEnum('incentive_type', values.incentiveType);
export const currencyCode = pgEnum('currency_code', values.currencyCode);
export const sessionLength = pgEnum('session_length', values.sessionLength);
export const language = pgEnum('language', values.language);
export const inputMode = pgEnum('input_mode', values.inputMode);
export const authenticationMode = pgEnum('authentication_mode', values.authenticationMode);
export const ledgerReason = pgEnum('ledger_reason', values.ledgerReason);
export const agentChangeOperation = pgEnum('agent_change_operation', values.agentChangeOperation);
export const workspaceTier = pgEnum('workspace_tier', tierNames);
export const webhookEndpointStatus = pgEnum('webhook_endpoint_status', values.webhookEndpointStatus);
export const webhookDeliveryStatus = pgEnum('webhook_delivery_status', values.webhookDeliveryStatus);
export const webhookDeliveryKind = pgEnum('webhook_delivery_kind', values.webhookDeliveryKind);
