import { ownRecord } from '#functions/http/own-record.ts';
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

interface Resource<R> {
  segments: Segment[];
  rank: string;
  methods: Map<string, R>;
}

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
  const resources = new Map<string, Resource<R>>();
  for (const route of routes) {
    const segments = segmentsOf(route.path);
    // A literal outranks a parameter in the same place, the earlier place first: as text, 1 > 0.
    const rank = segments.map((s) => ('literal' in s ? '1' : '0')).join('');
    const resource = resources.get(route.path) ?? { segments, rank, methods: new Map() };
    resource.methods.set(route.method, route);
    resources.set(route.path, resource);
  }
  // By their number of segments, best rank first: the first that fits a path is the one it selects.
  const bySize = new Map<number, Resource<R>[]>();
  for (const resource of [...resources.values()].sort((a, b) => b.rank.localeCompare(a.rank))) {
    const size = resource.segments.length;
    bySize.set(size, [...(bySize.get(size) ?? []), resource]);
  }

  return (method: string, encodedPath: string): RouteMatch<R> | undefined => {
    const sent = encodedPath.split('/').slice(1);
    const literal = sent.map((s) => (s.includes('%') ? decodePath(s) : s));
    const best = bySize
      .get(sent.length)
      ?.find(({ segments }) =>
        segments.every((s, i) =>
          'literal' in s ? s.literal === literal[i] : (sent[i] as string).length > 0,
        ),
      );
    const route = best?.methods.get(method);
    if (!best || !route) return undefined;
    const params = best.segments.flatMap((s, i) =>
      'param' in s ? [[s.param, decodeOnce(sent[i] as string)] as const] : [],
    );
    return { route, pathParameters: params.length > 0 ? ownRecord(params) : null };
  };
}
