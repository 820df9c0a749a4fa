// Stage names, apart from the stage settings (./stage.ts): nothing here loads aws-cdk-lib, so the
// CLIs and the local stand-ins can name a stage in milliseconds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/** The repository root: entries in the route table and `db/migrations` are relative to it. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export const STACK_PREFIX = 'VoiceAgentAdmin';
export const PROD = 'prod';
/** Keeps `VoiceAgentAdmin-<stage>` and the names CloudFormation derives from it short. */
const MAX_STAGE_LENGTH = 24;

/**
 * The preview base stack (`VoiceAgentAdmin-previews`): the VPC and the one Aurora cluster every
 * branch preview keeps its own database on (infra/preview-base.ts). Never a branch's stage.
 */
export const PREVIEW_BASE = 'previews';

/**
 * A one-account trial: its own network and small pausing cluster, everything deletable, no deploy
 * identity (GitHub OIDC, account policies) needed. Never a branch's stage.
 */
export const SANDBOX = 'sandbox';

/** A preview that rehearses prod's connection path: RDS Proxy, TLS verify-full to the proxy, a running writer. */
export const STAGING = 'staging';

/**
 * Any branch or stage name → a valid, short stack-name fragment: lowercase letters, digits and
 * dashes, starting with a letter. Names that had to be cut keep a hash of the original, so two
 * long branches that share a prefix still get different stacks.
 */
export function sanitiseStage(raw: string): string {
  const slug = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!slug) throw new Error(`Stage name ${JSON.stringify(raw)} has no letters or digits`);
  const lettered = /^[a-z]/.test(slug) ? slug : `b-${slug}`;
  if (lettered.length <= MAX_STAGE_LENGTH) return lettered;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 6);
  return `${lettered.slice(0, MAX_STAGE_LENGTH - 7).replace(/-+$/, '')}-${hash}`;
}

/** The checked-out branch, or undefined without git, outside a repository, or on a detached HEAD. */
export function currentGitBranch(cwd = repoRoot): string | undefined {
  try {
    const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return branch && branch !== 'HEAD' ? branch : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `-c stage=…` wins; otherwise the git branch (or the CI's branch variables when the checkout has
 * no git), otherwise `local`. Production is never chosen implicitly: a branch called `prod`
 * must not deploy over the durable stack, nor one called `previews` over the preview base, nor
 * one called `sandbox` as the sandbox.
 */
export function resolveStage(
  explicit: string | undefined,
  branch: () => string | undefined = () =>
    currentGitBranch() || process.env.GITHUB_HEAD_REF || process.env.GITHUB_REF_NAME,
): string {
  if (explicit) return sanitiseStage(explicit);
  const inferred = sanitiseStage(branch() || 'local');
  if (inferred === PROD) throw new Error('The prod stage must be chosen explicitly: -c stage=prod');
  if (inferred === PREVIEW_BASE) {
    throw new Error('The preview base must be chosen explicitly: -c stage=previews');
  }
  if (inferred === SANDBOX) throw new Error('The sandbox must be chosen explicitly: -c stage=sandbox');
  return inferred;
}
