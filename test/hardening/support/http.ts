import { request } from 'node:http';
import { connect } from 'node:net';
import type { ApiResult } from '#functions/http/types.ts';
import { gatewayBodyFor } from '#test/helpers/gateway-answers.ts';

export interface HttpAnswer extends ApiResult {
  /** API Gateway's own answer (no function ran): exactly its gateway response's bytes. */
  fromGateway: boolean;
}

/**
 * One request with node:http, headers exactly as given (no fetch normalisation), the body as
 * bytes; the answer as the handler result it came from, so the same invariants apply.
 */
export function send(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<HttpAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({
            statusCode: res.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            fromGateway:
              Buffer.concat(chunks).toString('utf8') ===
              gatewayBodyFor(res.statusCode ?? 0, String(headers['x-request-id'])),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A request written byte for byte on a socket (any request target); the status line's code back,
 * 0 when none came within `ms`. The socket stays open for the answer: Node's server drops the
 * answer to a client that half-closed first.
 */
export function sendRaw(base: string, head: string, ms = 5_000): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.write(Buffer.from(`${head}\r\nconnection: close\r\n\r\n`, 'latin1'));
  });
}
