import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '#cli/openapi.ts';
import { routeList } from '#contract/routes.ts';

describe('docs/openapi.json', () => {
  it('is what `npm run openapi` generates now (regenerate and commit when this fails)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(renderOpenApi());
  });

  it('has one operation per route, each with its scope and an operationId', () => {
    const doc = JSON.parse(renderOpenApi());
    for (const route of routeList) {
      const operation = doc.paths[route.path][route.method.toLowerCase()];
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation['x-required-scopes']).toEqual([route.scope]);
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    }
    expect(Object.values(doc.paths).flatMap((p) => Object.keys(p as object))).toHaveLength(routeList.length);
  });

  it('holds schemas that are valid JSON Schema 2020-12', () => {
    const doc = JSON.parse(renderOpenApi());
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(ajv.validateSchema(schema as object), name).toBe(true);
    }
  });
});
