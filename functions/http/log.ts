import { AsyncLocalStorage } from 'node:async_hooks';
import { ownRecord } from './own-record.ts';

/**
 * Structured JSON lines on stdout (what Lambda's JSON log format and CloudWatch Insights read).
 * Anything that could carry a credential is redacted before it is written.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: Level, message: string, fields?: Record<string, unknown>) => void;

const SECRET_KEY = /authorization|token|secret|password|cookie|api[-_]?key/i;
// No word boundary before `vak_` (`_vak_…` and `xvak_…` are tokens too); any case of `Bearer`.
const TOKEN_TEXT = /(vak_)[A-Za-z0-9_-]+|\b(Bearer\s+)\S+/gi;
// A SHA-256 in hex, as a token is stored and looked up: as good as the token to whoever reads it
// beside the database. Any run of 64 hex digits goes.
const TOKEN_HASH = /\b[0-9a-f]{64}\b/gi;
// Drizzle's message for a failed statement (the tools' and the admin function's) ends with its
// parameters: a token's hash, a name…
const STATEMENT_PARAMS = /\nparams: [\s\S]*$/;

const redactText = (text: string) =>
  text.replace(TOKEN_TEXT, (_, p1, p2) => `${p1 ?? p2}[redacted]`).replace(TOKEN_HASH, '[redacted]');

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  // Deeper than this is cut, not written as is: unredacted (and possibly cyclic) otherwise.
  if (depth > 6) return '[truncated]';
  if (value instanceof Error) {
    const { code, cause } = value as { code?: unknown; cause?: unknown };
    return {
      name: value.name,
      message: redactText(value.message.replace(STATEMENT_PARAMS, '')),
      code,
      ...(cause === undefined ? {} : { cause: redact(cause, depth + 1) }),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return ownRecord(Object.entries(value), (v, k) =>
    SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1),
  );
}

const order: Level[] = ['debug', 'info', 'warn', 'error'];
// Lambda's application log levels (set with the JSON log format) onto ours.
const lambdaLevels: Record<string, Level> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
  FATAL: 'error',
};

/** `AWS_LAMBDA_LOG_LEVEL` (what Lambda sets), else `LOG_LEVEL`, else `info`; an unknown name is `info`. */
export function levelFromEnv(env: NodeJS.ProcessEnv = process.env): Level {
  const name = (env.AWS_LAMBDA_LOG_LEVEL || env.LOG_LEVEL || 'info').toUpperCase();
  return lambdaLevels[name] ?? 'info';
}

/**
 * The invocation a line belongs to (the Lambda request id, cold start), set by `lambda()` in
 * functions/deps.ts and added to every line written while it runs, however deep the caller.
 */
export const invocation = new AsyncLocalStorage<Record<string, unknown>>();

export const createLogger =
  (
    write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
    minLevel: Level = levelFromEnv(),
  ): Logger =>
  (level, message, fields = {}) => {
    if (order.indexOf(level) < order.indexOf(minLevel)) return;
    const time = new Date().toISOString();
    const context = invocation.getStore();
    let line: string;
    try {
      line = JSON.stringify({ time, level, message, ...context, ...(redact(fields) as object) });
    } catch {
      // A field JSON cannot hold (a BigInt): the line is still written; logging never throws.
      line = JSON.stringify({ time, level, message, ...context, fields: '[unserialisable]' });
    }
    write(line);
  };

/** For tests and tools that want silence. */
export const silentLogger: Logger = () => {};
