/**
 * `npm run openapi` (second step): the client's types, generated from docs/openapi.json by
 * openapi-typescript. Read from the file, not imported: client/ depends on no other project folder.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

export const CLIENT_TYPES_PATH = 'client/api-types.ts';

export async function renderClientTypes(documentPath = 'docs/openapi.json'): Promise<string> {
  // A field with a default is still optional to send (openapi-typescript would make it required).
  const ast = await openapiTS(JSON.parse(readFileSync(documentPath, 'utf8')), { defaultNonNullable: false });
  return `// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.\n\n${astToString(ast)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CLIENT_TYPES_PATH, await renderClientTypes());
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
