/**
 * `npm run docs:routes`: writes README.md's route list from the route table (contract/routes.ts)
 * between its markers; test/docs/route-list.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Route, routeList } from '#contract/routes.ts';
import { repoRoot } from '#infra/stage-name.ts';

export const README = join(repoRoot, 'README.md');
export const START = '<!-- routes:start (npm run docs:routes writes this) -->';
export const END = '<!-- routes:end -->';

/** One Markdown row per route, in the route table's order. */
export const renderRouteList = (routes: readonly Route[] = routeList) =>
  [
    '| method | path | scope | handler | what it does |',
    '| --- | --- | --- | --- | --- |',
    ...routes.map(
      (r) => `| ${r.method} | \`${r.path}\` | \`${r.scope}\` | [\`${r.entry}\`](${r.entry}) | ${r.summary} |`,
    ),
  ].join('\n');

/** The text between the markers (markers excluded, trimmed); throws when they are missing. */
export function committedRouteList(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${START} … ${END}`);
  return text.slice(start + START.length, end).trim();
}

export const withRouteList = (text: string, list: string) =>
  `${text.slice(0, text.indexOf(START) + START.length)}\n${list}\n${text.slice(text.indexOf(END))}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const before = readFileSync(README, 'utf8');
  committedRouteList(before);
  const after = withRouteList(before, renderRouteList());
  writeFileSync(README, after);
  process.stdout.write(
    after === before ? 'README.md: route list unchanged\n' : 'README.md: route list written\n',
  );
}
