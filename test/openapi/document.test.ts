import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '#cli/openapi.ts';
import { routeList } from '#contract/routes.ts';
import { agentListParams } from '#contract/schemas/list-queries.ts';
import type { QueryParam } from '#contract/schemas/query.ts';
import { sessionListParams } from '#contract/schemas/session-list-query.ts';

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

  it('describes each query parameter as its Valibot check decides: the same samples pass and fail both', () => {
    const doc = JSON.parse(renderOpenApi());
    // Query values arrive as text; OpenAPI validators coerce them to the parameter's type, as Ajv does here.
    const ajv = new Ajv2020({ strict: false, coerceTypes: true });
    // Calendar validity (month 13, 30 February) is Valibot's alone: the documented pattern is the shape.
    const samples: Record<string, string[]> = {
      limit: ['1', '250', '0', '251', 'ten', '1.5'],
      offset: ['0', '10000', '10001', '-1', 'x'],
      cursor: ['', 'abc', 'x'.repeat(1025)],
      order: ['asc', 'desc', 'up'],
      includeTotal: ['true', 'false', 'yes'],
      hasLedger: ['true', 'false', '1'],
      status: ['PENDING', 'PENDING,COMPLETED', 'DRAFT', 'DONE', 'PENDING,', 'pending'],
      type: ['WEB_VOICE', 'INBOUND_CALL,WEB_VOICE', 'CALL'],
      agentId: ['abc123', 'abc,def', 'ABC', 'a'.repeat(25), 'a,,b'],
      agentVersionId: ['abc123', 'abc,def', 'ABC', 'a'.repeat(25), ''],
      personId: ['abc123', 'p1,p2,p3', 'P1', 'a'.repeat(25), 'a b'],
      conversationId: ['abc123', 'c1,c2', 'c-1', 'a'.repeat(24), ','],
      createdAfter: [
        '2020-01-01',
        '2020-01-01T10:00Z',
        '2020-01-01T10:00:00.123+02:00',
        '2020-01-01T10:00:00',
        'today',
      ],
      createdBefore: ['0000-01-01', '2020-1-01', '2020-01-01T24:00Z'],
      slug: ['front-desk', '', 'x'.repeat(256)],
      q: ['desk', ''],
    };
    const routes: [string, Record<string, QueryParam>][] = [
      ['/agents', agentListParams],
      ['/sessions', sessionListParams],
    ];
    let compared = 0;
    for (const [path, params] of routes) {
      const documented = doc.paths[path].get.parameters as { name: string; schema: object }[];
      expect(documented.map((p) => p.name).sort()).toEqual(Object.keys(params).sort());
      for (const { name, schema } of documented) {
        // Every parameter is compared: a new one without samples fails here.
        expect(samples[name]?.length, `samples for ${path} ${name}`).toBeGreaterThan(0);
        const param = params[name] as QueryParam;
        const validate = ajv.compile(schema);
        for (const sample of samples[name] ?? []) {
          // One occurrence of a repeatable parameter is one item of the documented array.
          const value = param.repeatable ? [sample] : sample;
          const valibot = v.safeParse(param.schema, sample).success;
          expect(validate(value), `${path} ${name}=${sample}: Valibot says ${valibot}`).toBe(valibot);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  });
});
