import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committedRouteList, README, renderRouteList } from '#cli/route-list.ts';
import { routeKey, routeList } from '#contract/routes.ts';

/** `METHOD /path` of each row of a rendered route list, as a reader of the README sees them. */
const listed = (list: string) =>
  list
    .split('\n')
    .map((line) => /^\| (GET|POST|PATCH|PUT|DELETE) \| `([^`]+)` \|/.exec(line))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} ${m[2]}`);

/** What is missing from the list and what it has beyond the route table. */
const drift = (list: string) => {
  const rows = listed(list);
  const table = routeList.map(routeKey);
  return {
    missing: table.filter((key) => !rows.includes(key)),
    extra: rows.filter((key) => !table.includes(key)),
  };
};

describe("README.md's route list", () => {
  const committed = committedRouteList(readFileSync(README, 'utf8'));

  it('names every route of the route table once, and nothing else', () => {
    expect(drift(committed)).toEqual({ missing: [], extra: [] });
    expect(listed(committed)).toHaveLength(routeList.length);
  });

  it('is what npm run docs:routes writes now', () => {
    expect(committed).toBe(renderRouteList());
  });

  it('would flag a route left out and a route the table does not have', () => {
    const [first, ...rest] = routeList;
    const edited = renderRouteList(rest).replace(
      '| --- | --- | --- | --- | --- |',
      '| --- | --- | --- | --- | --- |\n| DELETE | `/agents/{agentId}` | `agents:write` | x | gone |',
    );
    expect(drift(edited)).toEqual({
      missing: [first && routeKey(first)],
      extra: ['DELETE /agents/{agentId}'],
    });
  });
});
