import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { encodeCursor } from '#functions/http/cursor.ts';
import { silentLogger } from '#functions/http/log.ts';
import { listRequest } from '#functions/http/pagination.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { createTenant, type Tenant } from '#test/helpers/tenants.ts';
import { type App, buildApp } from './support/app.ts';

/**
 * Defects the fuzzing found in files hardening does not own, each the smallest input that showed
 * it, kept as a regression test once fixed (in c1a86de and 25bb247).
 */
describe('defects found by fuzzing', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ database: handle, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle?.close());

  const post = (rawBody: string) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', rawBody, caller: tenant }));
  const listAgents = (query: string) => app.listAgents(apiEvent({ path: '/agents', query, caller: tenant }));
  const listSessions = (query: string) =>
    app.listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
  const pathsOf = (body: string) => (JSON.parse(body).errors ?? []).map((e: { path: string }) => e.path);

  // body.ts recorded the reviver's key, not the path to it.
  it('names a NUL character nested in the body by its dot path', async () => {
    const result = await post('{"name":"A","version":{"systemPrompt":"a\\u0000b"}}');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['version.systemPrompt']);
  });

  it('names a NUL character in a body that is a bare string as (root)', async () => {
    const result = await post('"a\\u0000b"');
    expect(pathsOf(result.body)).toEqual(['(root)']);
  });

  // Unpaired UTF-16 surrogates reached the database: Postgres stored U+FFFD (the data silently
  // changed); jsonb and PGlite failed into a 400 naming nothing.
  it('refuses a lone surrogate in a config string with a 400 naming the field', async () => {
    const result = await post(
      '{"name":"A","version":{"config":{"tts":{"provider":"TTS_PROVIDER_1","model":"TTS_MODEL_1A","voiceId":"v\\ud800"}}}}',
    );
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['version.config.tts.voiceId']);
  });

  it('refuses a lone surrogate in the name rather than storing something else', async () => {
    const result = await post('{"name":"a\\udfffb"}');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['name']);
  });

  // query.ts collected values in a plain object, where `__proto__` is not a key.
  it('refuses the unknown query parameter __proto__ like any other', async () => {
    const result = await listAgents('__proto__=1');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['__proto__']);
  });

  // A reserved name stopped the parse and was named alone: `x` went unmentioned.
  it('names every unknown query parameter when one of them is __proto__, constructor or prototype', async () => {
    const result = await listAgents('x=1&__proto__=1&constructor=2&y=3&prototype=4');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['x', '__proto__', 'constructor', 'y', 'prototype']);
  });

  it('names every unknown body member when one of them is __proto__', async () => {
    const result = await post('{"name":"Ada","x":1,"__proto__":{},"y":2}');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['x', '__proto__', 'y']);
  });

  // Year 0000 passed the pattern; Postgres refused it with an error naming nothing.
  it('names createdAfter when it holds an instant Postgres cannot store', async () => {
    const result = await listSessions('createdAfter=0000-01-01');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['createdAfter']);
  });

  // The cursor's checksum is public, so a cursor can be forged with any `c` Date.parse accepts; it
  // stays within the caller's workspace, but reached the database as is.
  it('names cursor when a forged cursor holds a time Postgres cannot read', async () => {
    const binding = listRequest(
      { limit: 25, order: 'desc', cursor: '' },
      'agents',
      tenant.workspaceId,
    ).binding;
    const cursor = encodeCursor({ createdAt: '1 2', id: 'x' }, binding);
    const result = await listAgents(`cursor=${cursor}`);
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['cursor']);
  });

  // Valibot's strictObject reported the first unknown key only; DESIGN.md says "naming each".
  it('names every unknown body field, not only the first', async () => {
    const result = await post('{"name":"A","colour":"red","size":2}');
    expect(pathsOf(result.body).sort()).toEqual(['colour', 'size']);
  });

  // An empty name was reported as the whole body, `(root)`, or as ``.
  it('does not report an empty parameter name as (root) or as an empty path', async () => {
    for (const query of ['=x', '=x&=y']) {
      const result = await listAgents(query);
      expect(result.statusCode).toBe(400);
      for (const path of pathsOf(result.body)) expect(['(root)', '']).not.toContain(path);
    }
  });

  // c1a86de walked the parsed body recursively: a body nested some 5,000 levels deep (10 KB, far
  // under the 256 KiB cap) overflowed the stack into a 500. 25bb247 caps nesting at 32 levels.
  it('answers a deeply nested body with a 400, never a 500', async () => {
    // Both depths stay under the 256 KiB cap (6 bytes a level at most), so 413 is no way out.
    for (const depth of [5_000, 40_000]) {
      for (const [open, close] of [
        ['[', ']'],
        ['{"a":', '}'],
      ] as const) {
        const result = await post(`${open.repeat(depth)}1${close.repeat(depth)}`);
        expect(result.statusCode, `${depth} × ${open}`).toBe(400);
      }
    }
  });

  // c1a86de refused year 0000, but an offset could carry an instant past 9999 (fixed in 25bb247).
  it('names createdAfter when an offset carries it past year 9999', async () => {
    const result = await listSessions(`createdAfter=${encodeURIComponent('9999-12-31T23:59-23:59')}`);
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['createdAfter']);
  });

  // The query schema was Valibot's strictObject, which stops at the first unknown key.
  it('names every unknown query parameter, not only the first', async () => {
    const result = await listAgents('colour=red&size=2');
    expect(pathsOf(result.body).sort()).toEqual(['colour', 'size']);
  });
});
