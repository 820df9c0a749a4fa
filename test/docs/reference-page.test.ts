import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { silentLogger } from '#functions/http/log.ts';
import { type Gateway, startGateway } from '#infra/local/gateway.ts';
import { referencePageFiles, writeReferenceSite } from '#infra/local/reference-page.ts';
import { freshDatabase } from '#test/helpers/database.ts';

/**
 * The reference page at /docs, opened in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core). Without the browser the test is skipped locally, but fails in CI (CI=true),
 * where .ci/run installs it. CHROMIUM_PATH names another Chromium build (GitHub's runners ship
 * Google Chrome at /usr/bin/google-chrome).
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const haveChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!haveChromium && !inCi)
  console.warn(`reference page test skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

describe.skipIf(!haveChromium && !inCi)(
  `the API reference page in headless Chromium${haveChromium ? '' : ` (skipped: ${CHROMIUM} is absent)`}`,
  () => {
    let database: DatabaseHandle;
    let gateway: Gateway;
    let profile: string;
    let browser: BrowserContext | undefined;

    beforeAll(async () => {
      if (!haveChromium) throw new Error(`CI=true but ${CHROMIUM} is absent: .ci/run installs it`);
      database = await freshDatabase();
      gateway = await startGateway({
        deps: { database, logger: silentLogger },
        docs: referencePageFiles(),
      });
      profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
      browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1440, height: 1000 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      if (profile) rmSync(profile, { recursive: true, force: true });
      await gateway?.close();
      await database?.close();
    });

    it('renders the three operations, their parameters and an example response, loading nothing from elsewhere', async () => {
      const page = await (browser as BrowserContext).newPage();
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== new URL(gateway.url).origin)
          elsewhere.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));

      const answer = await page.goto(`${gateway.url}/docs`);
      expect(answer?.status()).toBe(200);
      expect(page.url()).toBe(`${gateway.url}/docs/`);
      // Each operation is a section with its summary as a heading.
      await page.locator('h2', { hasText: 'List sessions, newest first' }).waitFor({ timeout: 60_000 });

      const text = await page.locator('#redoc').innerText();
      for (const summary of [
        'Create an agent with its first version',
        'List agents, newest first',
        'List sessions, newest first',
      ])
        expect(text).toContain(summary);
      for (const parameter of [
        'Idempotency-Key',
        'includeTotal',
        'hasLedger',
        'createdAfter',
        'agentId',
        'cursor',
      ])
        expect(text).toContain(parameter);
      expect(text).toContain('Response samples');
      // An example response: Redoc's generated samples of the answers (an agent, a page of them), as JSON.
      const samples = await page.locator('.redoc-json').allInnerTexts();
      const responses = samples.filter((json) => /"id":\s*"/.test(json) && json.includes('"createdAt"'));
      expect(responses.length).toBeGreaterThanOrEqual(3);

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'reference-page.png'), fullPage: false });
      await page.locator('h2', { hasText: 'List sessions, newest first' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, 'reference-page-sessions.png'), fullPage: false });
      for (const shot of ['reference-page.png', 'reference-page-sessions.png'])
        expect(readFileSync(join(ARTIFACTS, shot)).subarray(1, 4).toString()).toBe('PNG');
      expect(elsewhere).toEqual([]);
      expect(errors).toEqual([]);
    }, 120_000);

    it('is the very page `npm run docs` writes as a static site', () => {
      const dir = mkdtempSync(join(tmpdir(), 'site-'));
      try {
        const written = writeReferenceSite(dir);
        const served = referencePageFiles();
        expect(written.map((path) => path.slice(dir.length + 1)).sort()).toEqual(Object.keys(served).sort());
        for (const [name, file] of Object.entries(served))
          expect(readFileSync(join(dir, name)).equals(Buffer.from(file.body))).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

describe('/docs is served only where asked for', () => {
  it('is not a route of the gateway unless given (the deployed API has no unauthenticated route)', async () => {
    const database = await freshDatabase();
    const gateway = await startGateway({ deps: { database, logger: silentLogger } });
    try {
      const res = await fetch(`${gateway.url}/docs/`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        type: 'https://voice-agent-admin.dev/problems/not-found',
        status: 404,
      });
    } finally {
      await gateway.close();
      await database.close();
    }
  });
});
