import type { Deps } from '../deps.ts';
import { HttpProblem, problemType, validationFailed } from '../http/problem.ts';
import { type SecretBox, stageSecretBox } from './secrets.ts';
import { urlRefusal } from './send.ts';

/** What the webhook routes need beyond the others': the secrets' box and the URL policy. */
export interface WebhookDeps extends Deps {
  box?: SecretBox;
  /** http and loopback receivers allowed (`npm start`, tests); default from WEBHOOK_ALLOW_LOOPBACK. */
  allowLoopback?: boolean;
}

/** The box, or a 503 where the stage has no data key for the secrets (webhooks are not set up there). */
export async function boxOf(deps: WebhookDeps): Promise<SecretBox> {
  if (deps.box) return deps.box;
  try {
    return await stageSecretBox();
  } catch {
    throw new HttpProblem(
      503,
      problemType('webhooks-unavailable'),
      'Webhooks are not set up on this stage.',
      undefined,
      { 'retry-after': '3600' },
    );
  }
}
export const allowLoopbackOf = (deps: WebhookDeps) =>
  deps.allowLoopback ?? process.env.WEBHOOK_ALLOW_LOOPBACK === 'true';

/**
 * A URL the stage may send to, as far as can be told before sending: https (http only to loopback
 * where allowed), and an address literal only when public. A name is checked at each attempt,
 * on the address it resolves to and the one connected to.
 */
export function checkedUrl(url: string, allowLoopback: boolean): string {
  const why = urlRefusal(url, allowLoopback);
  if (why) throw validationFailed(`The url ${why}.`, [{ path: 'url', message: why }]);
  return url;
}
