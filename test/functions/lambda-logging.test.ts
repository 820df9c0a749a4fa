import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger, levelFromEnv } from '#functions/http/log.ts';
import { handler } from '#functions/sessions/list.ts';
import { apiEvent } from '#test/helpers/events.ts';

describe('the log level', () => {
  it('comes from AWS_LAMBDA_LOG_LEVEL, else LOG_LEVEL, else info', () => {
    expect(levelFromEnv({})).toBe('info');
    expect(levelFromEnv({ LOG_LEVEL: 'warn' })).toBe('warn');
    expect(levelFromEnv({ LOG_LEVEL: 'DEBUG' })).toBe('debug');
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'ERROR', LOG_LEVEL: 'debug' })).toBe('error');
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'TRACE' })).toBe('debug');
    expect(levelFromEnv({ AWS_LAMBDA_LOG_LEVEL: 'FATAL' })).toBe('error');
    expect(levelFromEnv({ LOG_LEVEL: 'loud' })).toBe('info');
  });

  it('is what a logger built without one writes at', () => {
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'warn';
    try {
      const lines: string[] = [];
      const log = createLogger((line) => lines.push(line));
      log('info', 'dropped');
      log('warn', 'kept');
      expect(lines.map((l) => JSON.parse(l).message)).toEqual(['kept']);
    } finally {
      if (previous === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = previous;
    }
  });
});

describe('a deployed invocation', () => {
  const saved = { ...process.env };
  const written: string[] = [];

  beforeAll(() => {
    // The container opens its own database (connecting on first use); this request is refused
    // before any query reaches it, so no server need answer there.
    process.env.DATABASE_URL = 'postgres://nobody@127.0.0.1:1/none';
    delete process.env.DATABASE_SECRET_ARN;
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterAll(() => {
    vi.restoreAllMocks();
    process.env = saved;
  });

  const requestLines = () =>
    written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === 'request');

  it('logs the Lambda request id and the cold start on its lines, cold only the first time', async () => {
    const event = apiEvent({ path: '/sessions', caller: null });
    const first = await handler(event, { awsRequestId: 'aws-request-1' });
    const second = await handler(event, { awsRequestId: 'aws-request-2' });
    expect([first.statusCode, second.statusCode]).toEqual([401, 401]);
    expect(requestLines()).toEqual([
      expect.objectContaining({ awsRequestId: 'aws-request-1', coldStart: true, status: 401 }),
      expect.objectContaining({ awsRequestId: 'aws-request-2', coldStart: false, status: 401 }),
    ]);
  });
});
