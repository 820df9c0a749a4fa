import { writeFileSync } from 'node:fs';
import { openApiDocument } from '#contract/openapi.ts';

/** `npm run openapi`: regenerates docs/openapi.json (a test fails while the committed one is stale). */
export const OPENAPI_PATH = 'docs/openapi.json';
export const renderOpenApi = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OPENAPI_PATH, renderOpenApi());
  console.log(`wrote ${OPENAPI_PATH}`);
}
