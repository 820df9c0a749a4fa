import { decodePath } from './event.ts';

/** A route as the gateway knows it: a method on a resource path, `{name}` a whole-segment parameter. */
export interface RouteTemplate {
  method: string;
  path: string;
}

export interface RouteMatch<R extends RouteTemplate> {
  route: R;
  /** Each parameter's value, decoded once; null for a path without parameters, as API Gateway sends. */
  pathParameters: Record<string, string> | null;
}

type Segment = { literal: string } | { param: string };

const segmentsOf = (path: string): Segment[] =>
  path
    .split('/')
    .slice(1)
    .map((s) => {
      const param = /^\{([^{}]+)\}$/.exec(s)?.[1];
      return param ? { param } : { literal: s };
    });

/** Every valid `%XX` run decoded as UTF-8 (U+FFFD for bytes that are not), malformed escapes kept. */
const decodeOnce = (segment: string) =>
  segment.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) =>
    Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'),
  );

/**
 * Matches a request path (as sent, still percent-encoded) to a route, as a REST API selects a
 * resource: segment by segment, a literal segment before a parameter, then the method on that
 * resource. A parameter takes one whole non-empty segment (an encoded `/` stays inside it).
 * Literal segments compare decoded as the event's `path` is (`decodePath`), as before templates.
 */
export function routeMatcher<R extends RouteTemplate>(routes: readonly R[]) {
  const resources = new Map<string, { segments: Segment[]; methods: Map<string, R> }>();
  for (const route of routes) {
    const resource = resources.get(route.path) ?? { segments: segmentsOf(route.path), methods: new Map() };
    resource.methods.set(route.method, route);
    resources.set(route.path, resource);
  }

  return (method: string, encodedPath: string): RouteMatch<R> | undefined => {
    const sent = encodedPath.split('/').slice(1);
    const literal = sent.map(decodePath);
    let best: { segments: Segment[]; methods: Map<string, R> } | undefined;
    let bestRank = '';
    for (const resource of resources.values()) {
      const { segments } = resource;
      if (segments.length !== sent.length) continue;
      const fits = segments.every((s, i) =>
        'literal' in s ? s.literal === literal[i] : (sent[i] as string).length > 0,
      );
      if (!fits) continue;
      // A literal outranks a parameter in the same place, the earlier place first: as text, 1 > 0.
      const rank = segments.map((s) => ('literal' in s ? '1' : '0')).join('');
      if (!best || rank > bestRank) {
        best = resource;
        bestRank = rank;
      }
    }
    const route = best?.methods.get(method);
    if (!best || !route) return undefined;
    const params = best.segments.flatMap((s, i) =>
      'param' in s ? [[s.param, decodeOnce(sent[i] as string)] as const] : [],
    );
    return { route, pathParameters: params.length > 0 ? Object.fromEntries(params) : null };
  };
}
