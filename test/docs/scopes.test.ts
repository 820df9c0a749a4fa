import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeList, scopes } from '#contract/routes.ts';

// The route table (contract/routes.ts) is the source of the scopes; the docs list them for people.
describe('the scope lists of the docs', () => {
  const api = readFileSync('docs/api.md', 'utf8');
  const table = api.slice(api.indexOf('### Scopes'), api.indexOf('## Conventions of every response'));
  const rows = new Map(
    table
      .split('\n')
      .map((line) => /^\| `([a-z]+:[a-z]+)` \| (.*) \|$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1] as string, m[2] as string]),
  );

  it("docs/api.md's Scopes table has a row per scope, naming exactly the routes that need it", () => {
    expect([...rows.keys()]).toEqual([...scopes]);
    for (const scope of scopes) {
      const listed = (rows.get(scope) as string).split(', ').map((r) => r.replaceAll('`', ''));
      const needing = routeList.filter((r) => r.scope === scope).map((r) => `${r.method} ${r.path}`);
      expect(listed.sort(), scope).toEqual(needing.sort());
    }
  });

  it("docs/api.md's In short table has a row per route, with the route's scope, and the Authentication section names every scope", () => {
    const inShort = api.slice(api.indexOf('## In short'), api.indexOf('## Authentication'));
    const listed = inShort
      .split('\n')
      .map((line) => /^\| `(GET|POST|PATCH|PUT|DELETE) ([^`]+)` \| `([a-z]+:[a-z]+)` \|/.exec(line))
      .filter((m) => m !== null)
      .map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(listed.sort()).toEqual(routeList.map((r) => `${r.method} ${r.path} ${r.scope}`).sort());
    const authentication = api.slice(api.indexOf('## Authentication'), api.indexOf('### Scopes'));
    for (const scope of scopes) expect(authentication, scope).toContain(`\`${scope}\``);
  });

  it("README.md's authentication paragraph names every scope", () => {
    const readme = readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
    const sentence = /with scopes ([^.]*?), an optional expiry/.exec(readme)?.[1] ?? '';
    expect(sentence.match(/`[a-z]+:[a-z]+`/g)).toEqual(scopes.map((s) => `\`${s}\``));
  });
});
