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
 * Defects the hardening tests found in files this suite does not own, each stated as the behaviour
 * it should have and marked `it.fails`: the test passes while the defect is there and fails once it
 * is fixed. Then drop `.fails` (it becomes a regression test) and remove the matching entry from
 * support/known-defects.ts, which lets the fuzz properties count these instead of stopping on them.
 */
describe('known defects (outside the files hardening may change)', () => {
  let handle: DatabaseHandle;
  let app: App;
  let tenant: Tenant;

  beforeAll(async () => {
    handle = await freshDatabase();
    app = buildApp({ db: handle.db, logger: silentLogger });
    tenant = await createTenant(handle.db);
  });
  afterAll(() => handle?.close());

  const post = (rawBody: string) =>
    app.createAgent(apiEvent({ method: 'POST', path: '/agents', rawBody, caller: tenant }));
  const listAgents = (query: string) => app.listAgents(apiEvent({ path: '/agents', query, caller: tenant }));
  const listSessions = (query: string) =>
    app.listSessions(apiEvent({ path: '/sessions', query, caller: tenant }));
  const pathsOf = (body: string) => (JSON.parse(body).errors ?? []).map((e: { path: string }) => e.path);

  // functions/http/body.ts: the NUL check records the reviver's key, not the path to it.
  it.fails('names a NUL character nested in the body by its dot path', async () => {
    const result = await post('{"name":"A","version":{"systemPrompt":"a\\u0000b"}}');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['version.systemPrompt']);
  });

  it.fails('names a NUL character in a body that is a bare string as (root)', async () => {
    const result = await post('"a\\u0000b"');
    expect(pathsOf(result.body)).toEqual(['(root)']);
  });

  // functions/http/body.ts: unpaired UTF-16 surrogates are not refused like NUL. Postgres stores
  // U+FFFD instead (the data silently changes); jsonb and PGlite fail into a 400 naming nothing.
  it.fails('refuses a lone surrogate in a config string with a 400 naming the field', async () => {
    const result = await post(
      '{"name":"A","version":{"config":{"tts":{"provider":"TTS_PROVIDER_1","model":"TTS_MODEL_1A","voiceId":"v\\ud800"}}}}',
    );
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['version.config.tts.voiceId']);
  });

  it.fails('refuses a lone surrogate in the name rather than storing something else', async () => {
    const result = await post('{"name":"a\\udfffb"}');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['name']);
  });

  // functions/http/query.ts: values are collected in a plain object, where `__proto__` is not a key.
  it.fails('refuses the unknown query parameter __proto__ like any other', async () => {
    const result = await listAgents('__proto__=1');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['__proto__']);
  });

  // functions/schemas/list-queries.ts: years 0000 and past 9999 pass the pattern; Postgres refuses them.
  it.fails('names createdAfter when it holds an instant Postgres cannot store', async () => {
    const result = await listSessions('createdAfter=0000-01-01');
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['createdAfter']);
  });

  // functions/http/cursor.ts: the checksum is public, so a cursor can be forged with any `c` that
  // Date.parse accepts; it stays within the caller's workspace, but reaches the database as is.
  it.fails('names cursor when a forged cursor holds a time Postgres cannot read', async () => {
    const binding = listRequest({ limit: 25, order: 'desc', cursor: '' }).binding;
    const cursor = encodeCursor({ createdAt: '1 2', id: 'x' }, binding);
    const result = await listAgents(`cursor=${cursor}`);
    expect(result.statusCode).toBe(400);
    expect(pathsOf(result.body)).toEqual(['cursor']);
  });

  // Valibot's strictObject reports the first unknown key only; DESIGN.md says "naming each".
  it.fails('names every unknown body field, not only the first', async () => {
    const result = await post('{"name":"A","colour":"red","size":2}');
    expect(pathsOf(result.body).sort()).toEqual(['colour', 'size']);
  });

  // functions/http/validation.ts and query.ts: an empty name is reported as the whole body, or as ``.
  it.fails('does not report an empty parameter name as (root) or as an empty path', async () => {
    for (const query of ['=x', '=x&=y']) {
      const result = await listAgents(query);
      expect(result.statusCode).toBe(400);
      for (const path of pathsOf(result.body)) expect(['(root)', '']).not.toContain(path);
    }
  });
});
