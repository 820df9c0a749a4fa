import { pgEnum } from 'drizzle-orm/pg-core';

// The spec's enumerations, once. Valibot schemas read `.enumValues` from here.
export const agentStatus = pgEnum('agent_status', ['DRAFT', 'ARCHIVED', 'PUBLISHED', 'COMPLETED']);
export const sessionType = pgEnum('session_type', ['INBOUND_CALL', 'WEB_VOICE']);
export const sessionStatus = pgEnum('session_status', ['PENDING', 'IN_PROGRESS', 'COMPLETED']);
export const incentiveType = pgEnum('incentive_type', ['CASH', 'NONE']);
export const currencyCode = pgEnum('currency_code', ['USD']);
export const sessionLength = pgEnum('session_length', [
  'FIVE_MINUTES',
  'TEN_MINUTES',
  'FIFTEEN_MINUTES',
  'THIRTY_MINUTES',
  'FORTY_FIVE_MINUTES',
]);
export const language = pgEnum('language', ['en', 'es', 'fr']);
export const inputMode = pgEnum('input_mode', ['SMS', 'PHONE', 'WEB_CHAT', 'WEB_VOICE']);
export const authenticationMode = pgEnum('authentication_mode', ['NONE', 'CODE']);
export const ledgerReason = pgEnum('ledger_reason', [
  'INITIAL_BALANCE',
  'PURCHASE_REFILL',
  'SUBSCRIPTION_REFILL',
  'REDEMPTION_CODE',
  'VOICE_USAGE',
  'SMS_USAGE',
]);
