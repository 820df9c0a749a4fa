import * as v from 'valibot';
import { eventTypes, webhookDeliveryStatus, webhookEndpointStatus } from '../enums.ts';
import { WEBHOOK_DESCRIPTION_MAX, WEBHOOK_ROTATION_GRACE_MAX_SECONDS, WEBHOOK_URL_MAX } from '../limits.ts';
import { atMost, choiceOf, FreeFormInput, Id, Instant, strictJsonObject, text } from './common.ts';
import { enumList, listRouteQuery, pageParams } from './list-queries.ts';
import { instantParam, type QueryParam } from './query.ts';

// The webhook routes' requests, in a module of their own: no other route's bundle builds them.
// Each is built in a closure marked pure, so a webhook route's bundle drops those it never reads:
// esbuild keeps every other module-level call, as it cannot tell a schema builder has no effects.

/** An absolute http(s) URL without credentials or fragment; the stage's policy is checked apart. */
export const WebhookUrl = /* @__PURE__ */ (() =>
  v.pipe(
    v.string(),
    atMost(WEBHOOK_URL_MAX),
    v.check((s) => {
      try {
        const url = new URL(s);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
      } catch {
        return false;
      }
    }, 'must be an absolute https URL without credentials'),
    v.check((s) => !s.includes('#'), 'must not have a fragment'),
  ))();

/** An event type, or `*` for every type (today's and any added later). */
export const EnabledEvents = /* @__PURE__ */ (() =>
  v.pipe(
    v.array(choiceOf(['*', ...eventTypes])),
    v.minLength(1, 'must name at least one event type, or *'),
    v.maxLength(eventTypes.length + 1, 'lists a type twice'),
    v.check((types) => new Set(types).size === types.length, 'lists a type twice'),
  ))();

const AgentIds = /* @__PURE__ */ (() =>
  v.nullable(v.pipe(v.array(Id), v.maxLength(100, 'must name at most 100 agents'))))();

export const CreateWebhookEndpointBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    url: WebhookUrl,
    description: v.optional(text(WEBHOOK_DESCRIPTION_MAX), ''),
    enabledEvents: EnabledEvents,
    /** Only events of these agents (events without an agent are then not sent); null or absent: all. */
    agentIds: v.optional(AgentIds, null),
    metadata: v.optional(FreeFormInput, () => ({})),
  }))();
export type CreateWebhookEndpointBody = v.InferOutput<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    url: v.optional(WebhookUrl),
    description: v.optional(text(WEBHOOK_DESCRIPTION_MAX)),
    enabledEvents: v.optional(EnabledEvents),
    agentIds: v.optional(AgentIds),
    metadata: v.optional(FreeFormInput),
    /** `enabled` also re-enables an auto-disabled endpoint; `auto_disabled` is the system's only. */
    status: v.optional(
      choiceOf(webhookEndpointStatus.filter((s) => s !== 'auto_disabled') as ['enabled', 'disabled']),
    ),
  }))();
export type UpdateWebhookEndpointBody = v.InferOutput<typeof UpdateWebhookEndpointBody>;

export const RotateWebhookSecretBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    gracePeriodSeconds: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a whole number of seconds'),
        v.minValue(0, 'must be 0 or more'),
        v.maxValue(
          WEBHOOK_ROTATION_GRACE_MAX_SECONDS,
          `must be at most ${WEBHOOK_ROTATION_GRACE_MAX_SECONDS}`,
        ),
      ),
      WEBHOOK_ROTATION_GRACE_MAX_SECONDS,
    ),
  }))();

export const TestWebhookBody = /* @__PURE__ */ (() =>
  strictJsonObject({
    eventType: v.optional(choiceOf(eventTypes), 'agent.created'),
  }))();

export const RecoverWebhookBody = /* @__PURE__ */ (() =>
  v.pipe(
    strictJsonObject({ since: Instant, until: v.optional(Instant) }),
    v.forward(
      v.check(
        (b: { since: string; until?: string }) => b.until === undefined || b.until > b.since,
        'must be after since',
      ),
      ['until'] as never,
    ),
  ))();

export const webhookEndpointListParams = /* @__PURE__ */ (() =>
  ({ ...pageParams }) satisfies Record<string, QueryParam>)();
export const webhookEndpointListQuery = /* @__PURE__ */ (() => listRouteQuery(webhookEndpointListParams))();

export const webhookDeliveryListParams = /* @__PURE__ */ (() =>
  ({
    ...pageParams,
    status: enumList(webhookDeliveryStatus, 'Only deliveries in these states.'),
    eventType: enumList(eventTypes, 'Only deliveries of these event types.'),
    since: instantParam('down', 'Only deliveries created at or after this instant.'),
  }) satisfies Record<string, QueryParam>)();
export const webhookDeliveryListQuery = /* @__PURE__ */ (() => listRouteQuery(webhookDeliveryListParams))();
