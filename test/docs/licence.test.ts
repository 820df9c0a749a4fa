import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '#contract/openapi.ts';
import { referencePageFiles } from '#infra/local/reference-page.ts';

/** The licence is stated in four places; each must name the same one, Apache-2.0. */
describe('the licence', () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

  it('LICENSE holds the full text of the Apache License 2.0', () => {
    const text = read('LICENSE');
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(text).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    expect(text).toContain('3. Grant of Patent License.');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
  });

  it('package.json, the OpenAPI document (source and committed file) and the reference page say Apache-2.0', () => {
    const pkg = JSON.parse(read('package.json')) as { license?: string };
    const committed = JSON.parse(read('docs/openapi.json')) as { info: { license: { identifier: string } } };
    const page = String(referencePageFiles()['index.html']?.body);
    expect(pkg.license).toBe('Apache-2.0');
    expect(openApiDocument().info.license).toEqual({ name: 'Apache License 2.0', identifier: 'Apache-2.0' });
    expect(committed.info.license.identifier).toBe('Apache-2.0');
    expect(page).toContain('<meta name="license" content="Apache-2.0">');
    expect(page).not.toContain('LicenseRef-Proprietary');
  });
});
