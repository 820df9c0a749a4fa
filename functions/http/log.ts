/**
 * Structured JSON lines on stdout (what Lambda's JSON log format and CloudWatch Insights read).
 * Anything that could carry a credential is redacted before it is written.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: Level, message: string, fields?: Record<string, unknown>) => void;

const SECRET_KEY = /authorization|token|secret|password|cookie|api[-_]?key/i;
const TOKEN_TEXT = /\b(vak_)[A-Za-z0-9_-]+|\b(Bearer\s+)\S+/g;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(TOKEN_TEXT, (_, p1, p2) => `${p1 ?? p2}[redacted]`);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error)
    return { name: value.name, message: redact(value.message), code: (value as { code?: unknown }).code };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

export const createLogger =
  (
    write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
    minLevel: Level = 'info',
  ): Logger =>
  (level, message, fields = {}) => {
    const order: Level[] = ['debug', 'info', 'warn', 'error'];
    if (order.indexOf(level) < order.indexOf(minLevel)) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, message, ...(redact(fields) as object) }));
  };

/** For tests and tools that want silence. */
export const silentLogger: Logger = () => {};
