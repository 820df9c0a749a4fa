/**
 * A stand-in for the part of the API Gateway management API (REST-JSON) the admin function calls to
 * keep one API key per workspace in its tier's usage plan (functions/usage-plan-keys.ts): create
 * and find API keys, add a key to a usage plan and remove it; and for a preview's teardown
 * (cli/aws-stage.ts), list a plan's keys and delete a key. Enough for `@aws-sdk/client-api-gateway`,
 * with API Gateway's answers for a duplicate key value, a key already in a plan, and an unknown plan
 * or key. The state is in memory and readable, so tests check where each key ended up.
 */
import { randomBytes } from 'node:crypto';
import type { AwsAnswer, AwsRequest } from './aws-http.ts';

export interface LocalApiKey {
  id: string;
  name: string;
  value: string;
  enabled: boolean;
  description?: string;
}

export interface LocalUsagePlans {
  keys: Map<string, LocalApiKey>;
  /** Usage plan id → the ids of the keys in it. */
  plans: Map<string, Set<string>>;
}

export const localUsagePlans = (planIds: Iterable<string>): LocalUsagePlans => ({
  keys: new Map(),
  plans: new Map([...planIds].map((id) => [id, new Set<string>()])),
});

const API_KEYS = /^\/apikeys$/;
const API_KEY = /^\/apikeys\/([^/]+)$/;
const PLAN_KEYS = /^\/usageplans\/([^/]+)\/keys$/;
const PLAN_KEY = /^\/usageplans\/([^/]+)\/keys\/([^/]+)$/;

export const isApiGatewayRequest = (request: AwsRequest) =>
  API_KEYS.test(request.path) ||
  API_KEY.test(request.path) ||
  PLAN_KEYS.test(request.path) ||
  PLAN_KEY.test(request.path);

const json = (status: number, body: unknown, headers: Record<string, string> = {}): AwsAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const failure = (status: number, type: string, message: string) =>
  json(status, { message }, { 'x-amzn-errortype': type });
const notFound = (what: string) => failure(404, 'NotFoundException', `Invalid ${what} identifier specified`);

const keyJson = ({ id, name, enabled, description }: LocalApiKey, value?: string) => ({
  id,
  name,
  enabled,
  ...(description === undefined ? {} : { description }),
  ...(value === undefined ? {} : { value }),
});

function bodyOf(request: AwsRequest): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(request.body.toString('utf8') || '{}');
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function answerApiGateway(request: AwsRequest, state: LocalUsagePlans): AwsAnswer {
  const { method, path } = request;
  const query = new URLSearchParams(request.query ?? '');
  const body = bodyOf(request);
  if (body === undefined) return failure(400, 'BadRequestException', 'Invalid JSON body');

  if (API_KEYS.test(path) && method === 'GET') {
    const prefix = query.get('name') ?? '';
    const values = query.get('includeValues') === 'true';
    const items = [...state.keys.values()].filter((key) => key.name.startsWith(prefix));
    return json(200, { item: items.map((key) => keyJson(key, values ? key.value : undefined)) });
  }
  if (API_KEYS.test(path) && method === 'POST') {
    const { name, value, enabled = false, description } = body;
    if (typeof name !== 'string' || !name)
      return failure(400, 'BadRequestException', 'API Key name is required');
    const chosen = typeof value === 'string' ? value : randomBytes(20).toString('base64url');
    if (chosen.length < 20 || chosen.length > 128) {
      return failure(400, 'BadRequestException', 'API Key value should be at least 20 characters');
    }
    if ([...state.keys.values()].some((key) => key.value === chosen)) {
      return failure(409, 'ConflictException', 'API Key already exists');
    }
    const key: LocalApiKey = {
      id: randomBytes(5).toString('hex'),
      name,
      value: chosen,
      enabled: enabled === true,
      ...(typeof description === 'string' ? { description } : {}),
    };
    state.keys.set(key.id, key);
    return json(201, keyJson(key, key.value));
  }
  const apiKey = API_KEY.exec(path);
  if (apiKey && method === 'DELETE') {
    // Deleting a key takes it out of every usage plan it was in.
    const id = decodeURIComponent(apiKey[1] ?? '');
    if (!state.keys.delete(id)) return notFound('API Key');
    for (const plan of state.plans.values()) plan.delete(id);
    return { status: 202, headers: {}, body: '' };
  }
  const planKeys = PLAN_KEYS.exec(path);
  if (planKeys && method === 'POST') {
    const plan = state.plans.get(decodeURIComponent(planKeys[1] ?? ''));
    if (!plan) return notFound('Usage Plan');
    const key = state.keys.get(String(body.keyId));
    if (!key || body.keyType !== 'API_KEY') return notFound('API Key');
    if (plan.has(key.id)) return failure(409, 'ConflictException', 'Usage Plan Key already exists');
    // Every plan here is on the one stage: API Gateway refuses a key in two of them.
    if ([...state.plans.values()].some((other) => other.has(key.id))) {
      return failure(
        409,
        'ConflictException',
        `API Key ${key.id} cannot reference multiple Usage Plans with the same API Stage`,
      );
    }
    plan.add(key.id);
    return json(201, { id: key.id, type: 'API_KEY', name: key.name, value: key.value });
  }
  if (planKeys && method === 'GET') {
    const plan = state.plans.get(decodeURIComponent(planKeys[1] ?? ''));
    if (!plan) return notFound('Usage Plan');
    const items = [...plan].map((id) => state.keys.get(id) as LocalApiKey);
    return json(200, { item: items.map((key) => ({ id: key.id, type: 'API_KEY', name: key.name })) });
  }
  const planKey = PLAN_KEY.exec(path);
  if (planKey && method === 'DELETE') {
    const plan = state.plans.get(decodeURIComponent(planKey[1] ?? ''));
    if (!plan) return notFound('Usage Plan');
    if (!plan.delete(decodeURIComponent(planKey[2] ?? ''))) return notFound('Usage Plan Key');
    return { status: 202, headers: {}, body: '' };
  }
  return failure(404, 'NotFoundException', `no local stand-in for ${method} ${path}`);
}
