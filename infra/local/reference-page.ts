/**
 * The API reference page: docs/openapi.json rendered by Redoc, whose standalone bundle comes from
 * npm (node_modules/redoc), so the page needs no CDN and no network. `npm start` serves it at
 * /docs (local gateway only: the deployed API keeps no unauthenticated route); `npm run docs` writes
 * the same files to site/ (git-ignored) for static publishing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../stage-name.ts';

export interface StaticFile {
  contentType: string;
  body: string | Buffer;
}

export const OPENAPI_FILE = join(repoRoot, 'docs/openapi.json');
export const SITE_DIR = join(repoRoot, 'site');
const BUNDLE = 'redoc.standalone.js';
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** JSON that can sit inside a <script> element: no `</script>`, no `<!--`. */
const scriptSafe = (json: string) => json.replaceAll('<', '\\u003c');
const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/** The page's files by name, relative to each other (the folder can be served from any path). */
export function referencePageFiles(openapiFile = OPENAPI_FILE): Record<string, StaticFile> {
  const document = readFileSync(openapiFile, 'utf8');
  const { info } = JSON.parse(document) as { info: { title: string; license: { identifier: string } } };
  const title = escapeHtml(info.title);
  const licence = escapeHtml(info.license.identifier);
  // Redoc's side menu shows a logo from its CDN: the one remote load in the bundle, made inert.
  const bundle = readFileSync(
    createRequire(import.meta.url).resolve(`redoc/bundles/${BUNDLE}`),
    'utf8',
  ).replaceAll(REMOTE_LOGO, 'data:,');
  // Only this origin, inline code and the blob: worker Redoc's search uses: nothing else loads.
  const csp =
    "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; worker-src 'self' blob:; " +
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="license" content="${licence}">
<title>${title} — reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script id="openapi" type="application/json">${scriptSafe(document.trim())}</script>
<script src="./${BUNDLE}"></script>
<script>
  Redoc.init(
    JSON.parse(document.getElementById('openapi').textContent),
    { expandResponses: '200,201', jsonSampleExpandLevel: 3, hideDownloadButton: false, sortPropsAlphabetically: false },
    document.getElementById('redoc'),
  );
</script>
</body>
</html>
`;
  return {
    'index.html': { contentType: 'text/html; charset=utf-8', body: html },
    [BUNDLE]: { contentType: 'text/javascript; charset=utf-8', body: bundle },
  };
}

/** `npm run docs`: the page as a static site. */
export function writeReferenceSite(dir = SITE_DIR): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(referencePageFiles()).map(([name, file]) => {
    writeFileSync(join(dir, name), file.body);
    return join(dir, name);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const path of writeReferenceSite()) console.log(`wrote ${path}`);
}
