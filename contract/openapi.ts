import { type JsonSchema, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import * as v from 'valibot';
import {
  ENDED_AT_SKEW_SECONDS,
  EVENT_RETENTION_DAYS,
  IDEMPOTENCY_KEY_HOURS,
  MAX_BODY_BYTES,
  SESSION_STALE_AFTER_SECONDS,
} from './limits.ts';
import { routeKey, routeList, routes } from './routes.ts';
import { Agent, AgentList, AgentVersion, AgentVersionList } from './schemas/agent.ts';
import { AgentChange, AgentChangeList } from './schemas/agent-change.ts';
import { VersionConfig, VersionConfigInput } from './schemas/config.ts';
import {
  AgentArchivedData,
  AgentCreatedData,
  AgentPublishedData,
  AgentUnarchivedData,
  BalanceLowData,
  Event,
  EventList,
  SessionEventData,
  UsageBookedData,
  WebhookEndpointDisabledData,
} from './schemas/event.ts';
import { eventListQuery } from './schemas/event-list-query.ts';
import { IdempotencyKey } from './schemas/headers.ts';
import { JsonPatch } from './schemas/json-patch.ts';
import { Balance, LedgerEntryList, UsageGroup, UsageReport } from './schemas/ledger.ts';
import { CreditBody, ledgerListQuery, usageQuery } from './schemas/ledger-requests.ts';
import { agentChangeListQuery, agentListQuery, versionListQuery } from './schemas/list-queries.ts';
import { type PathParamName, pathParamNames, pathParams } from './schemas/path.ts';
import { EdgeProblem, Problem } from './schemas/problem.ts';
import type { QueryParam } from './schemas/query.ts';
import { PublishAgentBody, UpdateAgentBody } from './schemas/requests.ts';
import { Conversation, LedgerEntry, Person, Session, SessionList } from './schemas/session.ts';
import { sessionListQuery } from './schemas/session-list-query.ts';
import { CompleteSessionBody, CreateSessionBody } from './schemas/session-requests.ts';
import { CreateAgentBody, CreateVersionBody } from './schemas/version-requests.ts';
import {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookRecovery,
} from './schemas/webhook.ts';
import {
  CreateWebhookEndpointBody,
  RecoverWebhookBody,
  RotateWebhookSecretBody,
  TestWebhookBody,
  UpdateWebhookEndpointBody,
  webhookDeliveryListParams,
  webhookEndpointListParams,
} from './schemas/webhook-requests.ts';

const schemas = {
  Agent,
  AgentList,
  AgentVersion,
  VersionConfig,
  VersionConfigInput,
  Session,
  SessionList,
  Conversation,
  Person,
  LedgerEntry,
  CreateAgentBody,
  Problem,
  EdgeProblem,
  AgentVersionList,
  JsonPatch,
  CreateVersionBody,
  UpdateAgentBody,
  PublishAgentBody,
  AgentChange,
  AgentChangeList,
  CreateSessionBody,
  CompleteSessionBody,
  Event,
  EventList,
  AgentCreatedData,
  AgentPublishedData,
  AgentArchivedData,
  AgentUnarchivedData,
  SessionEventData,
  UsageBookedData,
  BalanceLowData,
  LedgerEntryList,
  Balance,
  UsageGroup,
  UsageReport,
  CreditBody,
  WebhookEndpointDisabledData,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEndpointList,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookRecovery,
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  RotateWebhookSecretBody,
  TestWebhookBody,
  RecoverWebhookBody,
};
type SchemaName = keyof typeof schemas;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

/** Header values arrive as text: a count is described as the digits it is sent as. */
const digits: JsonSchema = { type: 'string', pattern: '^[0-9]+$' };

const requestIdHeader = { 'x-request-id': header('The request id; also in every problem body.') };
/** On a 201: where the new resource is read (RFC 9110 §10.2.2), replayed with the answer. */
const locationHeader = (what: string) => ({
  location: header(`The URL of the new ${what}: this request's URL and its id.`, {
    type: 'string',
    format: 'uri-reference',
  }),
});
const problemResponse = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...extraHeaders },
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
/** Statuses every route can answer, before or around the handler. */
const commonResponses = {
  '401': problemResponse(
    'No bearer token, or an empty one (API Gateway’s own answer, shaped as a problem by a gateway response).',
    { 'www-authenticate': header('`Bearer`') },
  ),
  '403': problemResponse(
    'The token is unknown, revoked or expired (API Gateway’s own answer, as a problem; the operation answers the same for a key revoked or expired since API Gateway cached its allow, and when it authenticated the request itself because the authorizer could not reach the database), or lacks the scope.',
  ),
  '404': problemResponse('No such route (API Gateway’s own answer, as a problem).'),
  '429': problemResponse(
    'The workspace is over its tier’s rate or daily quota (API Gateway’s own answer, or the operation’s), problem `rate-limited` or `quota-exceeded`.',
    { 'retry-after': header('Seconds to wait before retrying: a whole number, as header text.', digits) },
  ),
  '500': problemResponse('An unexpected error; nothing about it is disclosed.'),
  '503': problemResponse('The database is unavailable; retry after the given delay.', {
    'retry-after': header('Seconds to wait before retrying: a whole number, as header text.', digits),
  }),
};

/**
 * What the web application firewall answers on every route, before API Gateway (its statuses and
 * rules: infra/gateway-responses.ts `edgeAnswers`): `application/json` beside a status's problems.
 */
const edgeStatuses = {
  '400': 'The `Authorization` header came more than once (`blockedBy: "authorization-repeated"`).',
  '401': 'An `Authorization` that is not `Bearer vak_…` (`blockedBy: "token-shape"`).',
  '403': 'Blocked by a managed rule group (`blockedBy` names it).',
  '429':
    'Too many requests from this address or with this key (`blockedBy: "rate-per-ip"` or `"rate-per-authorization"`).',
} as const;

/** Each operation's answers with the web ACL's added: a status it may block with, as JSON. */
function withEdgeAnswers(responses: Record<string, { description: string; content?: object }>) {
  const all = { ...responses };
  for (const [status, why] of Object.entries(edgeStatuses)) {
    const own = all[status];
    const edge = { 'application/json': { schema: ref('EdgeProblem') } };
    all[status] = own
      ? {
          ...own,
          description: `${own.description} From the web ACL: ${why}`,
          content: { ...own.content, ...edge },
        }
      : { description: `From the web ACL: ${why}`, content: edge };
  }
  return all;
}

/** `^X$` or an enum, as a pattern for `X,X,…` (one occurrence of a repeatable parameter). */
function commaListPattern(item: JsonSchema): string {
  const one = Array.isArray(item.enum)
    ? `(${item.enum.map((value) => String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`
    : String(item.pattern).replace(/^\^/, '').replace(/\$$/, '');
  return `^${one}(,${one})*$`;
}

/**
 * A parameter's schema, derived from its Valibot pipe (whose last schema is the value it yields);
 * its default is the parsed value of an absent parameter. A repeatable parameter's occurrences may
 * each hold several comma-separated values, which the item schema says too.
 */
function parameterSchema(p: QueryParam): JsonSchema {
  const {
    $schema: _,
    default: _default,
    ...json
  } = toJsonSchema(p.schema, {
    typeMode: 'output',
    errorMode: 'ignore',
  });
  const fallback = v.parse(p.schema, undefined) as JsonSchema['default'];
  if (p.repeatable && json.items && typeof json.items === 'object' && !Array.isArray(json.items)) {
    const item = json.items as JsonSchema;
    json.items = {
      anyOf: [
        item,
        { type: 'string', pattern: commaListPattern(item), description: 'Several, comma-separated.' },
      ],
    };
  }
  return fallback === undefined ? json : { ...json, default: fallback };
}

function queryParameters(params: Record<string, QueryParam>) {
  return Object.entries(params).map(([name, p]) => ({
    name,
    in: 'query',
    required: false,
    description: p.description,
    schema: parameterSchema(p),
    ...(p.repeatable ? { style: 'form', explode: true } : {}),
  }));
}

/** A schema as the document shows it: no `$schema`, and no checks JSON Schema cannot say. */
const jsonSchemaOf = (schema: v.GenericSchema) =>
  (({ $schema: _, ...json }) => json)(toJsonSchema(schema, { errorMode: 'ignore' }));

/** The `{name}` parameters of a route's path, from contract/schemas/path.ts. */
function pathParameters(path: string) {
  return pathParamNames(path).map((name) => {
    const param = pathParams[name as PathParamName];
    if (!param) throw new Error(`${path}: no path parameter "${name}" in contract/schemas/path.ts`);
    return {
      name,
      in: 'path',
      required: true,
      description: param.description,
      schema: jsonSchemaOf(param.schema),
    };
  });
}

/** An operation's own 404: the resource its path names is not the caller's (or a malformed id). */
const noSuchResponse = (what: string) =>
  problemResponse(
    `No ${what} with this id in this workspace: unknown, another workspace's, or not an id at all (no existence is revealed); or no such route.`,
  );

const etagHeader = {
  etag: header(
    'The strong entity tag of the agent as answered, `"<agentId>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change the agent.',
    { type: 'string', pattern: '^"[^"]*"$' },
  ),
};

function listOperation(params: Record<string, QueryParam>, list: SchemaName, extra: object = {}) {
  return {
    parameters: queryParameters(params),
    responses: {
      '200': {
        description: 'One page, newest first unless `order=asc`.',
        headers: {
          ...requestIdHeader,
          link: header('`<…>; rel="next"` (RFC 8288) while another page exists.'),
          'x-total-count': header('With `includeTotal=true`: how many items match, as header text.', digits),
        },
        content: { 'application/json': { schema: ref(list) } },
      },
      '400': problemResponse('A query parameter is invalid; `errors` names each one.'),
      ...commonResponses,
      ...extra,
    },
  };
}

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: `Replays the first answer for ${IDEMPOTENCY_KEY_HOURS} h for the same body; 422 for another body; 409 while in flight.`,
  schema: jsonSchemaOf(IdempotencyKey),
};

const createOperation = {
  parameters: [idempotencyKeyParameter],
  requestBody: { required: true, content: { 'application/json': { schema: ref('CreateAgentBody') } } },
  responses: {
    '201': {
      description: 'The new agent with its version 1; `ETag` is what `GET /agents/{agentId}` answers.',
      headers: {
        ...requestIdHeader,
        ...etagHeader,
        ...locationHeader('agent'),
        'idempotent-replayed': header('`true` when this is a replayed answer; absent otherwise.', {
          type: 'string',
          enum: ['true'],
        }),
      },
      content: { 'application/json': { schema: ref('Agent') } },
    },
    '400': problemResponse('Malformed JSON or an invalid field; `errors` names each one.'),
    '409': problemResponse('The slug is taken in this workspace, or the Idempotency-Key is in flight.'),
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/json.'),
    '422': problemResponse('The Idempotency-Key was used with a different body.'),
    ...commonResponses,
  },
};

const getAgentOperation = {
  parameters: [
    {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'ETags the client holds (weak comparison), or `*`: 304 without a body when one is the current ETag.',
      schema: { type: 'string' },
    },
  ],
  responses: {
    '200': {
      description: 'The agent, with its latest version: the same shape as an item of `GET /agents`.',
      headers: { ...requestIdHeader, ...etagHeader },
      content: { 'application/json': { schema: ref('Agent') } },
    },
    '304': {
      description: '`If-None-Match` names the current ETag: the copy the client holds is current. No body.',
      headers: { ...requestIdHeader, ...etagHeader },
    },
    '400': problemResponse('A query parameter was given (this operation takes none); `errors` names each.'),
    ...commonResponses,
    '404': noSuchResponse('agent'),
  },
};

const versionListOperation = (() => {
  const list = listOperation(versionListQuery.params, 'AgentVersionList');
  return { ...list, responses: { ...list.responses, '404': noSuchResponse('agent') } };
})();

const noQueryResponse = problemResponse(
  'A query parameter was given (this operation takes none); `errors` names each.',
);

/** A read of one item by its path: 200 with `schema`, `notFound` when the workspace holds no such item. */
const readOneOperation = (
  description: string,
  schema: SchemaName,
  notFound: ReturnType<typeof problemResponse>,
  contentType = 'application/json',
) => ({
  responses: {
    '200': { description, headers: requestIdHeader, content: { [contentType]: { schema: ref(schema) } } },
    '400': noQueryResponse,
    ...commonResponses,
    '404': notFound,
  },
});

const noSuchVersionResponse = problemResponse(
  "No agent with this id in this workspace, or no version with this id of this agent: unknown, another workspace's or another agent's, or not an id at all (no existence is revealed); or no such route.",
);

const ifMatchParameter = (required: boolean) => ({
  name: 'If-Match',
  in: 'header',
  required,
  description: required
    ? "The agent's current ETag (from `GET /agents/{agentId}` or the last change), or `*`: 428 without it, 412 when it is no longer current."
    : "Optional: when sent, the change is made only if it names the agent's current ETag (or is `*`); 412 otherwise.",
  schema: { type: 'string' },
});

// The session write path (issue 26).
const replayedHeader = {
  'idempotent-replayed': header('`true` when this is a replayed answer; absent otherwise.', {
    type: 'string',
    enum: ['true'],
  }),
};

/** The statuses every change to an agent can answer, besides its success. */
const changeResponses = (conflicts: string, ifMatchRequired: boolean) => ({
  '400': problemResponse(
    'Malformed JSON, an invalid field, a query parameter (none is taken) or a malformed `If-Match`; `errors` names each.',
  ),
  '409': problemResponse(conflicts),
  '412': problemResponse("`If-Match` names none of the agent's current ETag: it changed since it was read."),
  ...(ifMatchRequired
    ? { '428': problemResponse('No `If-Match`: a change to the agent needs its current ETag.') }
    : {}),
  ...commonResponses,
  '404': noSuchResponse('agent'),
});

const agentAnswer = (description: string) => ({
  description,
  headers: { ...requestIdHeader, ...etagHeader },
  content: { 'application/json': { schema: ref('Agent') } },
});

const createVersionOperation = {
  parameters: [ifMatchParameter(true), idempotencyKeyParameter],
  requestBody: { required: true, content: { 'application/json': { schema: ref('CreateVersionBody') } } },
  responses: {
    '201': {
      description: "The new draft version; `ETag` is the agent's new one.",
      headers: { ...requestIdHeader, ...etagHeader, ...locationHeader('version'), ...replayedHeader },
      content: { 'application/json': { schema: ref('AgentVersion') } },
    },
    ...changeResponses(
      'The agent is ARCHIVED or COMPLETED; `sourceAgentVersionId` is not one of its versions; or the Idempotency-Key is in flight.',
      true,
    ),
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/json.'),
    '422': problemResponse('The Idempotency-Key was used with a different request.'),
  },
};

const updateAgentOperation = {
  parameters: [ifMatchParameter(true)],
  requestBody: {
    required: true,
    content: {
      'application/merge-patch+json': { schema: ref('UpdateAgentBody') },
      'application/json': { schema: ref('UpdateAgentBody') },
    },
  },
  responses: {
    '200': agentAnswer('The changed agent, with its latest version and its new ETag.'),
    ...changeResponses('The agent is ARCHIVED or COMPLETED, or the slug is taken in this workspace.', true),
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/merge-patch+json or application/json.'),
  },
};

const publishOperation = {
  parameters: [ifMatchParameter(false)],
  requestBody: { required: true, content: { 'application/json': { schema: ref('PublishAgentBody') } } },
  responses: {
    '200': agentAnswer('The agent, `PUBLISHED` with the version given, and its new ETag.'),
    ...changeResponses(
      'The agent is ARCHIVED or COMPLETED, or `versionId` is not one of its versions.',
      false,
    ),
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/json.'),
  },
};

const noTransitionBody = {
  requestBody: {
    required: false,
    content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
  },
};
const transitionProblems = {
  '400': problemResponse('A query parameter, or a body field, was given that the operation does not take.'),
  '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
  '415': problemResponse('Content-Type is not application/json.'),
};

const archiveOperation = (done: string) => ({
  parameters: [ifMatchParameter(false)],
  ...noTransitionBody,
  responses: {
    '200': agentAnswer(`The agent ${done}, and its ETag (unchanged when it already was).`),
    ...transitionProblems,
    '400': problemResponse(
      'A query parameter or a body field (none is taken), or a malformed `If-Match`; `errors` names each.',
    ),
    '412': problemResponse(
      "`If-Match` names none of the agent's current ETag: it changed since it was read.",
    ),
    ...commonResponses,
    '404': noSuchResponse('agent'),
  },
});

const historyOperation = listOperation(agentChangeListQuery.params, 'AgentChangeList', {
  '404': noSuchResponse('agent'),
});

const sessionAnswer = (description: string) => ({
  description,
  headers: requestIdHeader,
  content: { 'application/json': { schema: ref('Session') } },
});
const illegalTransition = (what: string) =>
  problemResponse(`${what} (problem \`illegal-transition\`; \`errors\` names the session's \`status\`).`);
/** POST /sessions and .../start when the workspace has no credit left (functions/ledger/admission.ts). */
const noCredit = problemResponse(
  'The workspace has no credit left (problem `insufficient-credit`; `errors` names `balance`): add credit with `POST /ledger/credits`.',
);
const createSessionOperation = {
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: `Required: a retry must not record a second session. Replays the first answer for ${IDEMPOTENCY_KEY_HOURS} h for the same body; 422 for another body; 409 while in flight.`,
      schema: jsonSchemaOf(IdempotencyKey),
    },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: ref('CreateSessionBody') } } },
  responses: {
    '201': {
      ...sessionAnswer('The new `PENDING` session, as `GET /sessions` lists it.'),
      headers: { ...requestIdHeader, ...locationHeader('session'), ...replayedHeader },
    },
    '400': problemResponse(
      'Malformed JSON, an invalid field, no `Idempotency-Key`, or an `agentId`/`agentVersionId` that is not the workspace’s; `errors` names each.',
    ),
    '409': problemResponse(
      'The agent is archived, or has no published version and none was named; the email and the phone belong to two different persons (`errors` names both); or the Idempotency-Key is in flight.',
    ),
    '402': noCredit,
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/json.'),
    '422': problemResponse('The Idempotency-Key was used with a different body.'),
    ...commonResponses,
  },
};

const startSessionOperation = {
  ...noTransitionBody,
  responses: {
    '200': sessionAnswer('The session, `IN_PROGRESS` (a repeat answers it unchanged).'),
    ...transitionProblems,
    '402': noCredit,
    '409': problemResponse(
      "The session is `COMPLETED` (problem `illegal-transition`; `errors` names the session's `status`), or its agent was archived since it was created (problem `conflict`; `errors` names `agentId`).",
    ),
    ...commonResponses,
    '404': noSuchResponse('session'),
  },
};

const heartbeatSessionOperation = {
  ...noTransitionBody,
  responses: {
    '204': {
      description: 'Recorded; no body.',
      headers: {
        ...requestIdHeader,
        'last-heartbeat-at': header('The heartbeat as recorded (ISO 8601, UTC, milliseconds).'),
      },
    },
    ...transitionProblems,
    '409': illegalTransition('The session is `PENDING` (start it first) or `COMPLETED`'),
    ...commonResponses,
    '404': noSuchResponse('session'),
  },
};

const completeSessionOperation = {
  requestBody: { required: false, content: { 'application/json': { schema: ref('CompleteSessionBody') } } },
  responses: {
    '200': sessionAnswer(
      'The session, `COMPLETED`, with its ledger entry when usage was booked (a repeat answers it as the first did; the first usage stands).',
    ),
    ...transitionProblems,
    '400': problemResponse(
      'A query parameter or a field the operation does not take, or an invalid one: an `endedAt` that is no real instant, ' +
        `is before the session started (or, never started, was created) or is more than ${ENDED_AT_SKEW_SECONDS} s ahead of the server; \`errors\` names each.`,
    ),
    ...commonResponses,
    '404': noSuchResponse('session'),
  },
};

const listEventsOperation = {
  parameters: queryParameters(eventListQuery.params),
  responses: {
    '200': {
      description:
        'Events after the cursor, oldest first (feed order); empty when none is new yet. A cursor into purged ' +
        'events is no error: the page starts at the next event kept.',
      headers: {
        ...requestIdHeader,
        'x-next-cursor': header(
          'Where to continue (always sent): the cursor after this page, or the one given.',
        ),
        link: header('`<…?cursor=…>; rel="next"` when more events follow now.'),
      },
      content: { 'application/json': { schema: ref('EventList') } },
    },
    '400': problemResponse('An invalid parameter or a cursor this API did not issue; `errors` names each.'),
    ...commonResponses,
  },
};

const ledgerListOperation = (() => {
  const list = listOperation(ledgerListQuery.params, 'LedgerEntryList');
  const ok = list.responses['200'];
  const csv = {
    'text/csv': {
      schema: {
        type: 'string',
        description:
          'RFC 4180: a header line of the fields, then one CRLF-ended line per entry; null is empty.',
      },
    },
  };
  return {
    ...list,
    responses: { ...list.responses, '200': { ...ok, content: { ...ok.content, ...csv } } },
  };
})();

const creditOperation = {
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: `Required: a retry must not credit twice. Stored as the entry's \`idempotencyKey\`; replays the first answer for ${IDEMPOTENCY_KEY_HOURS} h for the same body (422 for another, 409 while in flight), and never books a second entry under the same key.`,
      schema: jsonSchemaOf(IdempotencyKey),
    },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: ref('CreditBody') } } },
  responses: {
    '201': {
      description: 'The credit booked: a ledger entry with a positive `amount`.',
      headers: { ...requestIdHeader, ...replayedHeader },
      content: { 'application/json': { schema: ref('LedgerEntry') } },
    },
    '200': {
      description:
        "An entry with this Idempotency-Key was booked before (after the key's replay window): that entry.",
      headers: requestIdHeader,
      content: { 'application/json': { schema: ref('LedgerEntry') } },
    },
    '400': problemResponse('Malformed JSON, an invalid field or no `Idempotency-Key`; `errors` names each.'),
    '409': problemResponse('The Idempotency-Key is in flight.'),
    '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
    '415': problemResponse('Content-Type is not application/json.'),
    '422': problemResponse('The Idempotency-Key was used with a different body.'),
    ...commonResponses,
  },
};

const usageOperation = {
  parameters: queryParameters(usageQuery.params),
  responses: {
    '200': {
      description: 'The groups with usage, in key order (days without entries are absent), and their total.',
      headers: requestIdHeader,
      content: { 'application/json': { schema: ref('UsageReport') } },
    },
    '400': problemResponse(
      'A parameter is missing or invalid (an unknown time zone, `to` before `from`, more than 366 days); `errors` names each.',
    ),
    ...commonResponses,
  },
};

const endpointEtagHeader = {
  etag: header(
    'The endpoint\'s strong entity tag, `"<id>.<updatedAt in epoch ms>"`: send it back in `If-Match` to change or delete it.',
    { type: 'string', pattern: '^"[^"]*"$' },
  ),
};
const endpointAnswer = (description: string, schema: SchemaName = 'WebhookEndpoint', extra = {}) => ({
  description,
  headers: { ...requestIdHeader, ...endpointEtagHeader, ...extra },
  content: { 'application/json': { schema: ref(schema) } },
});
const bodyProblems = {
  '413': problemResponse(`The body exceeds ${MAX_BODY_BYTES} bytes.`),
  '415': problemResponse('Content-Type is not application/json.'),
};
const jsonBody = (schema: SchemaName, required: boolean) => ({
  requestBody: { required, content: { 'application/json': { schema: ref(schema) } } },
});
const deliveryQueued = (description: string) => ({
  description,
  headers: requestIdHeader,
  content: { 'application/json': { schema: ref('WebhookDelivery') } },
});

const webhookOperations = {
  create: {
    parameters: [idempotencyKeyParameter],
    ...jsonBody('CreateWebhookEndpointBody', true),
    responses: {
      '201': {
        ...endpointAnswer(
          'The new endpoint and its signing secret, shown this once: a replay under the Idempotency-Key answers the endpoint without it (rotate for a new one).',
          'WebhookEndpointWithSecret',
          { ...locationHeader('webhook endpoint'), ...replayedHeader },
        ),
        content: {
          'application/json': {
            schema: { oneOf: [ref('WebhookEndpointWithSecret'), ref('WebhookEndpoint')] },
          },
        },
      },
      '400': problemResponse(
        'Malformed JSON, an invalid field, or a URL the stage does not send to (not https, or an address that is not public); `errors` names each.',
      ),
      '409': problemResponse('The Idempotency-Key is in flight.'),
      ...bodyProblems,
      '422': problemResponse('The Idempotency-Key was used with a different body.'),
      ...commonResponses,
    },
  },
  get: {
    responses: {
      '200': endpointAnswer('The endpoint (never its secret).'),
      '400': noQueryResponse,
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  update: {
    parameters: [ifMatchParameter(true)],
    ...jsonBody('UpdateWebhookEndpointBody', true),
    responses: {
      '200': endpointAnswer('The endpoint as changed, and its new ETag.'),
      '400': problemResponse(
        'Malformed JSON, an invalid field or URL, or a malformed `If-Match`; `errors` names each.',
      ),
      '412': problemResponse("`If-Match` names none of the endpoint's current ETag."),
      '428': problemResponse('No `If-Match`.'),
      ...bodyProblems,
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  delete: {
    parameters: [ifMatchParameter(true)],
    responses: {
      '204': {
        description: 'Deleted, with its deliveries and their attempts; no body.',
        headers: requestIdHeader,
      },
      '400': problemResponse('A query parameter, or a malformed `If-Match`; `errors` names each.'),
      '412': problemResponse("`If-Match` names none of the endpoint's current ETag."),
      '428': problemResponse('No `If-Match`.'),
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  rotate: {
    ...jsonBody('RotateWebhookSecretBody', false),
    responses: {
      '200': endpointAnswer('The endpoint and its new secret, shown this once.', 'WebhookEndpointWithSecret'),
      '400': problemResponse('Malformed JSON or an invalid field; `errors` names each.'),
      ...bodyProblems,
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  test: {
    ...jsonBody('TestWebhookBody', false),
    responses: {
      '202': deliveryQueued('The test delivery, queued: it is sent and recorded as any other.'),
      '400': problemResponse('Malformed JSON or an invalid field; `errors` names each.'),
      ...bodyProblems,
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  recover: {
    ...jsonBody('RecoverWebhookBody', true),
    responses: {
      '202': {
        description: 'How many deliveries were queued.',
        headers: requestIdHeader,
        content: { 'application/json': { schema: ref('WebhookRecovery') } },
      },
      '400': problemResponse(
        'Malformed JSON or an invalid field (`until` not after `since`); `errors` names each.',
      ),
      ...bodyProblems,
      ...commonResponses,
      '404': noSuchResponse('webhook endpoint'),
    },
  },
  deliveries: listOperation(webhookDeliveryListParams, 'WebhookDeliveryList', {
    '404': noSuchResponse('webhook endpoint'),
  }),
  delivery: readOneOperation(
    'The delivery and every attempt, oldest first.',
    'WebhookDeliveryDetail',
    noSuchResponse('webhook delivery'),
  ),
  redeliver: {
    ...noTransitionBody,
    responses: {
      '202': deliveryQueued('The new delivery, queued: the same `webhook-id` (the event id) and body.'),
      ...transitionProblems,
      ...commonResponses,
      '404': noSuchResponse('webhook delivery'),
    },
  },
};

const tags = [
  { name: 'Agents', description: 'Voice agents and their versions (configuration, prompt, input modes).' },
  { name: 'Sessions', description: 'Calls and web voice interactions people had with the agents.' },
  { name: 'Events', description: 'What changed, in order: the outbox as a pull feed.' },
  { name: 'Ledger', description: 'Credit and usage: the entries, the balance, usage reports, credits.' },
  {
    name: 'Webhooks',
    description:
      'The events pushed to the workspace’s endpoints, signed as Standard Webhooks says, with a delivery log.',
  },
];

const pagingNote =
  'Pages by `limit` and `offset`, or by cursor (`cursor=` starts; follow `Link: rel="next"`). ' +
  'Unknown parameters, bad values and repeated single-valued parameters are 400 problems naming each.';

const operations: Record<string, { tag: string; description: string; operation: object }> = {
  [routeKey(routes.createAgent)]: {
    tag: 'Agents',
    description:
      'Creates a `DRAFT` agent and its version 1 in one statement. Only `name` is required; the slug is ' +
      'derived from the name when omitted. Unknown fields at any depth are refused, each named. With an ' +
      '`Idempotency-Key`, a retry with the same body replays the first answer.',
    operation: createOperation,
  },
  [routeKey(routes.listAgents)]: {
    tag: 'Agents',
    description: `The workspace's agents, each with its latest version. ${pagingNote}`,
    operation: listOperation(agentListQuery.params, 'AgentList'),
  },
  [routeKey(routes.getAgent)]: {
    tag: 'Agents',
    description:
      'One agent of the workspace, with its latest version, in one statement. The `ETag` header is ' +
      'what a change to the agent sends back in `If-Match`.',
    operation: getAgentOperation,
  },
  [routeKey(routes.createVersion)]: {
    tag: 'Agents',
    description:
      'Adds a `DRAFT` version, numbered after the highest, built from the latest version (or ' +
      '`sourceAgentVersionId`): a member left out is copied from it, `null` clears a nullable one, ' +
      '`config` is replaced whole (completed as the create completes it). The agent, its new version ' +
      'and its history entry are written in one statement. Refused for `ARCHIVED` and `COMPLETED` agents.',
    operation: createVersionOperation,
  },
  [routeKey(routes.updateAgent)]: {
    tag: 'Agents',
    description:
      "A JSON merge patch (RFC 7396) of the agent's `name`, `description` and `slug`: a member left out " +
      'is kept, `description: null` clears it. A slug taken in the workspace is a 409.',
    operation: updateAgentOperation,
  },
  [routeKey(routes.publishAgent)]: {
    tag: 'Agents',
    description:
      'Makes the agent `PUBLISHED` with the version given (`publishedVersionId`, `publishedAt`, ' +
      '`publishedBy`); an older version is a rollback. Versions never change once written.',
    operation: publishOperation,
  },
  [routeKey(routes.archiveAgent)]: {
    tag: 'Agents',
    description:
      'Makes the agent `ARCHIVED` (`archivedAt`, `archivedBy`): no new version, PATCH or publish until ' +
      'it is unarchived. Archiving an archived agent changes nothing and answers it again.',
    operation: archiveOperation('archived'),
  },
  [routeKey(routes.unarchiveAgent)]: {
    tag: 'Agents',
    description:
      'Returns an archived agent to `COMPLETED` (when completed), `PUBLISHED` (when a version is ' +
      'published) or `DRAFT`, clearing `archivedAt`/`archivedBy`. An agent that is not archived is answered unchanged.',
    operation: archiveOperation('unarchived'),
  },
  [routeKey(routes.agentHistory)]: {
    tag: 'Agents',
    description: `Every change to the agent (who, what, when, the ETag before and after), newest first. ${pagingNote}`,
    operation: historyOperation,
  },
  [routeKey(routes.listSessions)]: {
    tag: 'Sessions',
    description: `The workspace's sessions, each with the agent version it ran on. ${pagingNote}`,
    operation: listOperation(sessionListQuery.params, 'SessionList'),
  },
  [routeKey(routes.listVersions)]: {
    tag: 'Agents',
    description:
      "The agent's versions, newest (highest `version`) first; `order` and cursors follow the version " +
      `numbers. An unknown agent, or another workspace's, is a 404. ${pagingNote}`,
    operation: versionListOperation,
  },
  [routeKey(routes.getVersion)]: {
    tag: 'Agents',
    description: 'One version of the agent, as an agent embeds its latest, in one statement.',
    operation: readOneOperation(
      "The version: the same shape as an Agent's `version`.",
      'AgentVersion',
      noSuchVersionResponse,
    ),
  },
  [routeKey(routes.diffVersions)]: {
    tag: 'Agents',
    description:
      'An RFC 6902 JSON Patch that turns the configuration of version `versionId` into that of ' +
      '`toVersionId` (both of this agent; the same version gives `[]`). The configuration is the ' +
      'object of these fields of a version: `themeId`, `incentiveType`, `incentiveAmount`, ' +
      '`incentiveCurrencyCode`, `maxParticipants`, `length`, `languages`, `inputMode`, `knowledgeBaseId`, ' +
      '`followUp`, `limitToKnowledgeBase`, `timezone`, `authentication`, `systemPrompt`, `agentFlowId`, ' +
      '`config`; never its id, agent, workspace, number, `sourceAgentVersionId` or audit fields. A ' +
      'field or member that is `null` is present (`replace` it); one that is absent is `add`ed. ' +
      'Only `add`, `remove` and `replace` are used; paths are JSON Pointers (RFC 6901: `~0` is `~`, ' +
      '`~1` is `/`), array items by index.',
    operation: readOneOperation(
      'The patch, as `application/json-patch+json`: applied in order to the first configuration, it gives the second.',
      'JsonPatch',
      noSuchVersionResponse,
      'application/json-patch+json',
    ),
  },
  [routeKey(routes.getSession)]: {
    tag: 'Sessions',
    description:
      'One session of the workspace with the same embeds as an item of `GET /sessions` (its agent with ' +
      'the version it ran on, conversation, person, ledger entry), in one statement.',
    operation: readOneOperation(
      'The session: the same shape as an item of `GET /sessions`.',
      'Session',
      noSuchResponse('session'),
    ),
  },
  [routeKey(routes.createSession)]: {
    tag: 'Sessions',
    description:
      'For the voice runtime: records a `PENDING` session for an agent, on its published version unless ' +
      '`agentVersionId` names one. The person is found by email, else phone, within the workspace (or made); ' +
      'the conversation is their latest unarchived one with this agent (or a new one). One transaction.',
    operation: createSessionOperation,
  },
  [routeKey(routes.startSession)]: {
    tag: 'Sessions',
    description: '`PENDING` → `IN_PROGRESS`: sets `startedAt` and the first `lastHeartbeatAt`.',
    operation: startSessionOperation,
  },
  [routeKey(routes.heartbeatSession)]: {
    tag: 'Sessions',
    description: `An \`IN_PROGRESS\` session is alive: sets \`lastHeartbeatAt\`. A session without one for ${SESSION_STALE_AFTER_SECONDS} s is completed by the stale-session sweep.`,
    operation: heartbeatSessionOperation,
  },
  [routeKey(routes.completeSession)]: {
    tag: 'Sessions',
    description:
      '`PENDING` or `IN_PROGRESS` → `COMPLETED`; with `usage`, books the one `VOICE_USAGE` ledger entry of ' +
      'the session however often this is retried or raced (also after the sweep completed the session).',
    operation: completeSessionOperation,
  },
  [routeKey(routes.listEvents)]: {
    tag: 'Events',
    description:
      'The workspace’s events (agent created/published/archived/unarchived, session created/started/completed, ' +
      'usage booked; `type` says what `data` holds), each written in the same transaction as its change, in a ' +
      'stable order: a consumer replays from any cursor and sees every event exactly once. Kept at least ' +
      `${EVENT_RETENTION_DAYS} days; then purged once the relay has published them. A cursor whose events ` +
      'were purged goes on with the oldest event still kept after it.',
    operation: listEventsOperation,
  },
  [routeKey(routes.listLedger)]: {
    tag: 'Ledger',
    description:
      "The workspace's ledger entries: credits (positive `amount`) and usage (negative). With " +
      '`Accept: text/csv` the same page is RFC 4180 CSV, with the same `Link` and `X-Total-Count`. ' +
      pagingNote,
    operation: ledgerListOperation,
  },
  [routeKey(routes.getLedgerEntry)]: {
    tag: 'Ledger',
    description: "One ledger entry of the workspace (another workspace's is a 404, as an unknown one).",
    operation: readOneOperation(
      'The entry, as `GET /ledger` lists it.',
      'LedgerEntry',
      noSuchResponse('ledger entry'),
    ),
  },
  [routeKey(routes.createCredit)]: {
    tag: 'Ledger',
    description:
      'Books a credit: `amount` (1 or more), `reason` (INITIAL_BALANCE, PURCHASE_REFILL, SUBSCRIPTION_REFILL, ' +
      'REDEMPTION_CODE; the last names `redemptionCodeId`), `reasonDetails`. Once per Idempotency-Key.',
    operation: creditOperation,
  },
  [routeKey(routes.getBalance)]: {
    tag: 'Ledger',
    description:
      "The workspace's balance (the sum of all its entries, kept with each booking), the last entry it " +
      'includes, and the threshold under which `balance.low` is sent. One primary-key read.',
    operation: {
      responses: {
        '200': {
          description: 'The balance.',
          headers: requestIdHeader,
          content: { 'application/json': { schema: ref('Balance') } },
        },
        '400': noQueryResponse,
        ...commonResponses,
      },
    },
  },
  [routeKey(routes.getUsage)]: {
    tag: 'Ledger',
    description:
      'Usage totals (amount, entries, sessions, seconds of voice) per day, agent or reason over the whole days ' +
      '`from` to `to` in `timezone`: every entry of the window counted once, so the groups add up to the ' +
      'entries to the unit. Served by a quarter-hour rollup kept with each booking.',
    operation: usageOperation,
  },
  [routeKey(routes.createWebhookEndpoint)]: {
    tag: 'Webhooks',
    description:
      'Registers an https endpoint for some event types (`*`: all) and, optionally, some agents. The answer holds its signing secret (`whsec_…`), shown this once. Every event of those types is delivered at least once, signed (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after failures. Order per endpoint is not promised.',
    operation: webhookOperations.create,
  },
  [routeKey(routes.listWebhookEndpoints)]: {
    tag: 'Webhooks',
    description: `The workspace's webhook endpoints. ${pagingNote}`,
    operation: listOperation(webhookEndpointListParams, 'WebhookEndpointList'),
  },
  [routeKey(routes.getWebhookEndpoint)]: {
    tag: 'Webhooks',
    description:
      'One endpoint with its health: `status`, `disabledReason`, `consecutiveFailures`, `lastSuccessAt`. Its secret is never shown again.',
    operation: webhookOperations.get,
  },
  [routeKey(routes.updateWebhookEndpoint)]: {
    tag: 'Webhooks',
    description:
      'Changes the URL, description, event types, agents or metadata, or `status` (`enabled`, which also re-enables an auto-disabled endpoint, or `disabled`).',
    operation: webhookOperations.update,
  },
  [routeKey(routes.deleteWebhookEndpoint)]: {
    tag: 'Webhooks',
    description: 'Deletes the endpoint, its deliveries and their attempts.',
    operation: webhookOperations.delete,
  },
  [routeKey(routes.rotateWebhookSecret)]: {
    tag: 'Webhooks',
    description:
      'A new signing secret; during `gracePeriodSeconds` (at most 24 h, the default) every delivery carries both signatures, space-separated.',
    operation: webhookOperations.rotate,
  },
  [routeKey(routes.testWebhookEndpoint)]: {
    tag: 'Webhooks',
    description:
      'Queues a signed delivery of `eventType` whose `data` is an example valid against the schema of that type in the event feed, recorded like any other.',
    operation: webhookOperations.test,
  },
  [routeKey(routes.recoverWebhookEvents)]: {
    tag: 'Webhooks',
    description:
      'Queues, in feed order, every event of the window (`since` to `until`, or now) the endpoint takes that has no 2xx delivery to it yet: a failed or dead delivery is due again, a missing one is made. Never a second delivery of one event.',
    operation: webhookOperations.recover,
  },
  [routeKey(routes.listWebhookDeliveries)]: {
    tag: 'Webhooks',
    description: `The endpoint's deliveries, by status, event type and age. ${pagingNote}`,
    operation: webhookOperations.deliveries,
  },
  [routeKey(routes.getWebhookDelivery)]: {
    tag: 'Webhooks',
    description:
      'One delivery with every attempt: when, the status code, the duration, the first 1 KiB of the answer and the error.',
    operation: webhookOperations.delivery,
  },
  [routeKey(routes.redeliverWebhook)]: {
    tag: 'Webhooks',
    description: 'Sends the delivery again as a new delivery with the same `webhook-id` and body.',
    operation: webhookOperations.redeliver,
  },
};

const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The OpenAPI 3.1 document, derived from the route table and the Valibot schemas. */
export function openApiDocument() {
  const converted = toJsonSchemaDefs(schemas, {
    typeMode: 'output',
    errorMode: 'ignore',
    // Loose objects only come from strictJsonObject, whose check refuses unknown fields.
    overrideSchema: ({ valibotSchema, jsonSchema }) =>
      valibotSchema.type === 'loose_object' ? { ...jsonSchema, additionalProperties: false } : undefined,
  });
  const components = JSON.parse(JSON.stringify(converted).replaceAll('#/$defs/', '#/components/schemas/'));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routeList) {
    paths[route.path] ??= {};
    const { tag, description, operation } = operations[routeKey(route)] as (typeof operations)[string];
    const inPath = pathParameters(route.path);
    const own = (operation as { parameters?: object[] }).parameters ?? [];
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      operationId: camel(route.name),
      summary: route.summary,
      description: `${description}\n\nRequires the \`${route.scope}\` scope.`,
      tags: [tag],
      // Scopes in a security requirement are for OAuth 2 schemes; an API key's scope is an extension.
      security: [{ bearer: [] }],
      'x-required-scopes': [route.scope],
      ...operation,
      responses: withEdgeAnswers(
        (operation as { responses: Parameters<typeof withEdgeAnswers>[0] }).responses,
      ),
      ...(inPath.length + own.length > 0 ? { parameters: [...inPath, ...own] } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Voice Agent Administration API',
      version: '1.0.0',
      description:
        'Agents and sessions of conversational voice agents, per workspace, behind bearer API keys. ' +
        'The contract in prose is docs/api.md.',
      contact: { name: 'Voice Agent Administration API maintainers' },
      // The repository's LICENSE; package.json and the reference page say the same (test/docs/licence.test.ts).
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
    },
    tags,
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'vak_<43 base64url characters>' },
      },
    },
  };
}
