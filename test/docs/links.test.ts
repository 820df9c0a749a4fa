import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * README.md and docs/ are read in a clone of this repository alone: every link must resolve
 * inside it (no `../shared/…`, no absolute file paths), and a `#fragment` into a Markdown file must
 * name one of its headings. Web links (https:) are allowed; they are not followed.
 */
const ROOT = resolve('.');
const markdown = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
const anchors = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => slug(line.replace(/^#+ /, '')));

/** Links outside code: [text](target) and <target>, ignoring fenced and inline code. */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
}

/** The links of `file` that do not resolve inside the repository, each with the reason. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of links(file)) {
    if (/^https?:\/\//.test(target) || target.startsWith('mailto:')) continue;
    const [path = '', fragment] = target.split('#');
    const resolved = path === '' ? resolve(file) : resolve(dirname(file), decodeURI(path));
    const inside = !relative(ROOT, resolved).startsWith('..') && !/^[a-z]+:/i.test(target);
    if (!inside || target.startsWith('/') || !existsSync(resolved)) {
      broken.push(`${target} (${inside ? 'missing' : 'outside the repository'})`);
      continue;
    }
    if (
      fragment &&
      statSync(resolved).isFile() &&
      resolved.endsWith('.md') &&
      !anchors(resolved).includes(fragment)
    )
      broken.push(`${target} (no heading "#${fragment}")`);
  }
  return broken;
}

describe('links in README.md and docs/', () => {
  it.each(markdown)('%s: every relative link resolves inside the repository', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('finds links to check, and flags a link outside the repository, a missing file and a missing heading', () => {
    expect(markdown.flatMap(links).length).toBeGreaterThan(5);
    expect(links('README.md')).toContain('docs/api.md');
    const dir = mkdtempSync(join(ROOT, 'docs', '.links-test-'));
    try {
      const file = join(dir, 'probe.md');
      writeFileSync(
        file,
        '[spec](../../../shared/spec/voice-agent-admin-api.md) [gone](nowhere.md) [api](../api.md#no-such-heading) [ok](../api.md)\n',
      );
      expect(brokenLinks(file)).toEqual([
        '../../../shared/spec/voice-agent-admin-api.md (outside the repository)',
        'nowhere.md (missing)',
        '../api.md#no-such-heading (no heading "#no-such-heading")',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
