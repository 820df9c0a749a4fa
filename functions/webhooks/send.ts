import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { WEBHOOK_RESPONSE_KEPT_BYTES, WEBHOOK_TIMEOUT_MS } from '#contract/limits.ts';
import { refusal } from './address.ts';

/** A name's addresses, as `dns.lookup(name, { all: true })` answers them. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface SendPolicy {
  /** A 2xx and its body (up to `keptBytes`) within this long, or the attempt failed. */
  timeoutMs: number;
  /**
   * `npm start` and the tests: http, and loopback receivers, are allowed. Off on deployed stages:
   * https only, public addresses only.
   */
  allowLoopback: boolean;
  /** Name resolution; injectable so a test can make a name resolve to a metadata address. */
  resolve: Resolve;
  /**
   * Certificates (PEM) trusted besides Node's own roots: a local receiver's own CA (as
   * NODE_EXTRA_CA_CERTS does for a whole process). Verification itself is never turned off.
   */
  extraCa?: readonly string[];
}

export const defaultResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The policy from the environment: `WEBHOOK_ALLOW_LOOPBACK=true` only where `npm start` or a test runs. */
export const sendPolicyFromEnv = (env: Record<string, string | undefined> = process.env): SendPolicy => ({
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === 'true',
  resolve: defaultResolve,
});

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  /** The answer's first bytes (WEBHOOK_RESPONSE_KEPT_BYTES), as text. */
  response: string | null;
  error: string | null;
  /** A 429's or 503's `Retry-After`, in seconds. */
  retryAfterSeconds?: number;
}

/** Why the URL may not be sent to under the policy, before any connection; undefined: it may. */
export function urlRefusal(url: string, allowLoopback: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'https:' && !(allowLoopback && parsed.protocol === 'http:'))
    return 'must be an https URL';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return refusal(host, allowLoopback);
  if (parsed.protocol === 'http:' && !allowLoopback) return 'must be an https URL';
  return undefined;
}

/** `dns.lookup`'s shape over `resolve`, refusing a name any of whose addresses is not allowed. */
function guardedLookup(policy: SendPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolve(hostname).then(
      (addresses) => {
        const bad = addresses.map((a) => refusal(a.address, policy.allowLoopback)).find(Boolean);
        if (addresses.length === 0 || bad) {
          const error = Object.assign(new Error(`refused: ${hostname} resolves to ${bad ?? 'nothing'}`), {
            code: 'EREFUSED_ADDRESS',
          });
          callback(error, '', 0);
          return;
        }
        if ((options as { all?: boolean }).all)
          (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
        else callback(null, addresses[0]?.address as string, addresses[0]?.family as number);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : undefined;
}

/**
 * POSTs `body` to `url` once: no redirect followed (a 3xx is a failure), the receiver's address
 * checked as resolved and again on the socket actually connected, the answer read up to
 * `keptBytes` and then dropped, everything within `timeoutMs`.
 */
export function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: SendPolicy,
  keptBytes = WEBHOOK_RESPONSE_KEPT_BYTES,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refused = urlRefusal(url, policy.allowLoopback);
  if (refused)
    return Promise.resolve({
      statusCode: null,
      durationMs: 0,
      response: null,
      error: `refused: ${url} ${refused}`,
    });
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let wait: number | undefined;
    const kept: Buffer[] = [];
    let keptLength = 0;
    let done = false;
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      const response = keptLength > 0 ? Buffer.concat(kept).subarray(0, keptBytes).toString('utf8') : null;
      resolve({
        statusCode,
        durationMs: elapsed(),
        response,
        error,
        ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
      });
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'voice-agent-admin-webhooks/1',
          ...headers,
        },
        lookup: guardedLookup(policy),
        agent: false,
        // `ca` replaces the default roots: they are listed too.
        ...(policy.extraCa?.length ? { ca: [...rootCertificates, ...policy.extraCa] } : {}),
      },
      (res) => {
        statusCode = res.statusCode ?? null;
        wait = statusCode === 429 || statusCode === 503 ? retryAfter(res.headers['retry-after']) : undefined;
        res.on('data', (chunk: Buffer) => {
          if (keptLength < keptBytes) {
            kept.push(chunk);
            keptLength += chunk.length;
          }
          if (keptLength >= keptBytes) finish(redirectError());
        });
        res.on('end', () => finish(redirectError()));
        res.on('error', (error) => finish(error.message));
        res.on('aborted', () => finish('the connection closed before the answer ended'));
      },
    );
    const redirectError = () =>
      statusCode !== null && statusCode >= 300 && statusCode < 400 ? 'redirects are not followed' : null;
    const timer = setTimeout(
      () => finish(`no complete answer within ${policy.timeoutMs} ms`),
      policy.timeoutMs,
    );
    request.on('socket', (socket: Socket) => {
      // The address actually connected to, whatever resolved it: what DNS rebinding cannot pass.
      socket.on('connect', () => {
        const why = socket.remoteAddress ? refusal(socket.remoteAddress, policy.allowLoopback) : 'no address';
        if (why) finish(`refused: ${why}`);
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        error.code === 'EREFUSED_ADDRESS' ? error.message : `${error.code ?? 'error'}: ${error.message}`,
      ),
    );
    request.end(body);
  });
}
