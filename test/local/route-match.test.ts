import { describe, expect, it } from 'vitest';
import { routeMatcher } from '#infra/local/route-match.ts';

const routes = [
  { method: 'GET', path: '/agents' },
  { method: 'POST', path: '/agents' },
  { method: 'GET', path: '/agents/{agentId}' },
  { method: 'PATCH', path: '/agents/{agentId}' },
  { method: 'POST', path: '/agents/search' },
  { method: 'GET', path: '/agents/{agentId}/versions/{versionId}' },
  { method: 'GET', path: '/agents/{agentId}/versions/latest' },
];
const match = routeMatcher(routes);
const found = (method: string, path: string) => {
  const m = match(method, path);
  return m && { path: m.route.path, method: m.route.method, params: m.pathParameters };
};

describe('the local gateway route matcher', () => {
  it('matches fixed paths with null parameters, as API Gateway sends', () => {
    expect(found('GET', '/agents')).toEqual({ path: '/agents', method: 'GET', params: null });
    expect(found('POST', '/agents')).toEqual({ path: '/agents', method: 'POST', params: null });
  });

  it('fills each parameter from its whole segment', () => {
    expect(found('GET', '/agents/abc')).toEqual({
      path: '/agents/{agentId}',
      method: 'GET',
      params: { agentId: 'abc' },
    });
    expect(found('GET', '/agents/a1/versions/v2')?.params).toEqual({ agentId: 'a1', versionId: 'v2' });
  });

  it('prefers a literal segment to a parameter, then looks for the method on that resource only', () => {
    expect(found('GET', '/agents/a1/versions/latest')?.path).toBe('/agents/{agentId}/versions/latest');
    expect(found('POST', '/agents/search')?.path).toBe('/agents/search');
    // `/agents/search` is a resource of its own: GET on it is no route, not the agent "search".
    expect(found('GET', '/agents/search')).toBeUndefined();
  });

  it('decodes a parameter once; literal segments compare decoded, as the event path is', () => {
    expect(found('GET', '/agents/a%2Fb')?.params).toEqual({ agentId: 'a/b' });
    expect(found('GET', '/agents/%2525')?.params).toEqual({ agentId: '%25' });
    expect(found('GET', '/agents/%zz')?.params).toEqual({ agentId: '%zz' });
    expect(found('GET', '/agents/%ff')?.params).toEqual({ agentId: '\uFFFD' });
    expect(found('GET', '/%61gents')?.path).toBe('/agents');
  });

  it('matches nothing for an empty segment, a trailing slash, a method or a path it lacks', () => {
    for (const [method, path] of [
      ['GET', '/agents/'],
      ['GET', '/agents//versions/v'],
      ['GET', '/agents/a/'],
      ['DELETE', '/agents/a'],
      ['GET', '/agents%2Fa'],
      ['GET', '/'],
      ['GET', '/nothing'],
    ] as const) {
      expect(found(method, path)).toBeUndefined();
    }
  });
});
