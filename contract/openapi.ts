import { type JsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { MAX_BODY_BYTES } from './limits.ts';
import { type Route, routeKey, routes } from './routes.ts';
import { Agent, AgentList, AgentVersion } from './schemas/agent.ts';
import { VersionConfig, VersionConfigInput } from './schemas/config.ts';
import { agentListParams, sessionListParams } from './schemas/list-queries.ts';
import { Problem } from './schemas/problem.ts';
import type { QueryParam } from './schemas/query.ts';
import { CreateAgentBody } from './schemas/requests.ts';
import { Conversation, LedgerEntry, Person, Session, SessionList } from './schemas/session.ts';

/** API Gateway's own answers (no route, no or refused credentials, its own failures). */
const GatewayMessage = v.strictObject({ message: v.string() });

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
  GatewayMessage,
};
type SchemaName = keyof typeof schemas;

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

const requestIdHeader = { 'x-request-id': header('The request id; also in every problem body.') };
const problemResponse = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...extraHeaders },
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
const gatewayResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('GatewayMessage') } },
});

/** Statuses every route can answer, before or around the handler. */
const commonResponses = {
  '401': {
    description: 'No bearer token (API Gateway), or a deferred authentication that failed (problem).',
    content: {
      'application/json': { schema: ref('GatewayMessage') },
      'application/problem+json': { schema: ref('Problem') },
    },
  },
  '403': {
    description: 'The token is unknown, revoked or expired (API Gateway), or lacks the scope (problem).',
    content: {
      'application/json': { schema: ref('GatewayMessage') },
      'application/problem+json': { schema: ref('Problem') },
    },
  },
  '404': gatewayResponse('No such route.'),
  '500': {
    description:
      'An unexpected error; nothing about it is disclosed (a problem, or API Gateway’s own message).',
    content: {
      'application/json': { schema: ref('GatewayMessage') },
      'application/problem+json': { schema: ref('Problem') },
    },
  },
  '503': problemResponse('The database is unavailable; retry after the given delay.', {
    'retry-after': header('Seconds to wait before retrying.', { type: 'integer' }),
  }),
};

function queryParameters(params: Record<string, QueryParam>) {
  return Object.entries(params).map(([name, p]) => ({
    name,
    in: 'query',
    required: false,
    description: p.description,
    schema: p.json,
    ...(p.repeatable ? { style: 'form', explode: true } : {}),
  }));
}

function listOperation(params: Record<string, QueryParam>, list: SchemaName) {
  return {
    parameters: queryParameters(params),
    responses: {
      '200': {
        description: 'One page, newest first unless `order=asc`.',
        headers: {
          ...requestIdHeader,
          link: header('`<…>; rel="next"` (RFC 8288) while another page exists.'),
          'x-total-count': header('With `includeTotal=true`: every match.', { type: 'integer' }),
        },
        content: { 'application/json': { schema: ref(list) } },
      },
      '400': problemResponse('A query parameter is invalid; `errors` names each one.'),
      ...commonResponses,
    },
  };
}

const createOperation = {
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Replays the first answer for 24 h for the same body; 422 for another body; 409 while in flight.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: ref('CreateAgentBody') } } },
  responses: {
    '201': {
      description: 'The new agent with its version 1.',
      headers: {
        ...requestIdHeader,
        'idempotent-replayed': header('`true` when this is a replayed answer.'),
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

const operations: Record<string, object> = {
  [routeKey(routes.createAgent)]: createOperation,
  [routeKey(routes.listAgents)]: listOperation(agentListParams, 'AgentList'),
  [routeKey(routes.listSessions)]: listOperation(sessionListParams, 'SessionList'),
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
  for (const route of Object.values(routes) as Route[]) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      operationId: camel(route.name),
      summary: route.summary,
      security: [{ bearer: [route.scope] }],
      ...operations[routeKey(route)],
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Voice Agent Administration API',
      version: '1.0.0',
      description: 'Agents and sessions of conversational voice agents, per workspace. See README.md.',
    },
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
