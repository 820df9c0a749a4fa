import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { routeList } from '#contract/routes.ts';
import { PROD, SANDBOX, STACK_PREFIX, STAGING } from './stage-name.ts';

// Naming is apart (./stage-name.ts), so the CLIs can name a stage without loading aws-cdk-lib.
export {
  currentGitBranch,
  PREVIEW_BASE,
  PROD,
  repoRoot,
  resolveStage,
  SANDBOX,
  STACK_PREFIX,
  STAGING,
  sanitiseStage,
} from './stage-name.ts';

/** Everything that differs between stages, in one place: no `if (stage === 'prod')` elsewhere. */
export interface StageConfig {
  readonly stage: string;
  readonly stackName: string;
  /** Only prod keeps data; every other stage is a disposable preview. */
  readonly durable: boolean;
  /**
   * A branch preview: its own database and role on the preview base's shared cluster
   * (infra/preview-base.ts), no VPC or cluster of its own, no reserved concurrency. prod, staging
   * and `-c proxy=true` previews own their network and cluster instead.
   */
  readonly sharedCluster: boolean;
  /**
   * Every role carries the account's permissions boundary, made with the deploy identity
   * (infra/account-policies.ts). The sandbox's account has no deploy identity, so none.
   */
  readonly roleBoundary: boolean;
  /** Log groups, the database and its secret follow this when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly database: {
    readonly minCapacity: number;
    readonly maxCapacity: number;
    /** Idle time before a 0-ACU minimum pauses the writer; undefined keeps it running. */
    readonly autoPause?: Duration;
    /** RDS Proxy in front of the writer; when false, functions connect to the cluster directly. */
    readonly proxy: boolean;
    /** Serverless v2 readers (each in another AZ than the writer, promotion tier scaling with it). */
    readonly readers: number;
    readonly backupRetention: Duration;
    readonly deletionProtection: boolean;
    readonly performanceInsights: boolean;
    /** The cluster's own: SNAPSHOT keeps a final snapshot when prod is ever deleted. */
    readonly removalPolicy: RemovalPolicy;
  };
  readonly functions: {
    readonly memoryMb: number;
    /**
     * Reserved (and so maximum) concurrency of each API function and of the authorizer: each
     * instance holds one database connection, so their sum bounds the connections (docs/deploying.md).
     * Undefined: nothing reserved (branch previews), the account's unreserved pool, bounded by the
     * API's throttle instead, so that no number of previews takes concurrency from prod.
     */
    readonly routeConcurrency?: number;
    readonly authorizerConcurrency?: number;
  };
  readonly api: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * How CodeDeploy moves each function's `live` alias to a new version: 10 % for 5 minutes, then
   * the rest (rolled back if the function's alarms fire), or all at once.
   */
  readonly release: 'canary' | 'all-at-once';
  /** Secrets Manager interface endpoint ENIs: one per AZ costs ~7 USD a month each. */
  readonly secretsEndpointAzs: 1 | 2;
  /**
   * Before migrations that change existing tables, the migration function takes a manual snapshot
   * of the cluster and waits for it (functions/cluster-snapshot.ts). Prod only: previews' data is
   * disposable, and their manual snapshots would outlive them.
   */
  readonly snapshotBeforeMigrations: boolean;
  /**
   * AWS Backup of the cluster (daily, continuous, copied to a locked vault); none on previews.
   * `copyVaultArn` (`-c backupCopyVaultArn=…`): the copies go to that vault of a backup account
   * instead of the stack's own locked vault (docs/deploying.md says how that vault is made).
   */
  readonly backup?: { readonly keepDays: number; readonly copyVaultArn?: string };
  /** Alarm notifications go to this address (`-c alarmEmail=…`); required where `durable`. */
  readonly alarmEmail?: string;
  /** Alarm notifications are also posted here (`-c alarmHttpsUrl=…`), e.g. a paging service's SNS endpoint. */
  readonly alarmHttpsUrl?: string;
  /**
   * The API on a custom domain (`-c domainName=… -c certificateArn=…`), its `execute-api` endpoint
   * then disabled; the DNS record pointing at it is the operator's (docs/deploying.md).
   */
  readonly domain?: CustomDomainSettings;
  /**
   * Webhook delivery (`-c webhooks=true`): the delivery queue and function, a NAT gateway for the
   * function's way out, the signing secrets' KMS key (infra/constructs/webhooks.ts). Off by
   * default: without it the webhook routes answer 503 `webhooks-unavailable`.
   */
  readonly webhooks: boolean;
}

export interface CustomDomainSettings {
  /** e.g. `api.example.com` */
  readonly name: string;
  /** An ACM certificate in the stack's region covering `name` (a regional endpoint). */
  readonly certificateArn: string;
}

/** What the command line sets: everything else is the stage kind's. */
type Named = 'stage' | 'stackName' | 'alarmEmail' | 'alarmHttpsUrl' | 'domain' | 'webhooks';

/** `arn:aws:backup:<region>:<account>:backup-vault:<name>`; the account is the one the data key is shared with. */
const BACKUP_VAULT_ARN = /^arn:aws[a-z-]*:backup:[a-z0-9-]+:(\d{12}):backup-vault:[A-Za-z0-9_.-]{2,50}$/;

/** The account of a backup vault ARN (validated by stageConfig). */
export const accountOfVault = (arn: string) => BACKUP_VAULT_ARN.exec(arn)?.[1] as string;

/**
 * What prod reserves for the API functions and the authorizer together, shared evenly: reserved
 * concurrency comes out of the account's quota (1,000 by default, 100 of which must stay
 * unreserved) and, one connection per instance, out of the proxy's connections. A fixed number per
 * route stopped fitting either once the routes grew from 3 to 22 (docs/deploying.md, "Connections").
 */
export const PROD_API_RESERVED_CONCURRENCY = 700;
/** Each API function's and the authorizer's even share of `total`. */
export const apiInstanceShare = (total: number) => Math.floor(total / (routeList.length + 1));

const production = {
  durable: true,
  sharedCluster: false,
  roleBoundary: true,
  removalPolicy: RemovalPolicy.RETAIN,
  logRetention: RetentionDays.THREE_MONTHS,
  database: {
    minCapacity: 0.5,
    maxCapacity: 8,
    proxy: true,
    readers: 1,
    backupRetention: Duration.days(14),
    deletionProtection: true,
    performanceInsights: true,
    removalPolicy: RemovalPolicy.SNAPSHOT,
  },
  functions: {
    memoryMb: 512,
    routeConcurrency: apiInstanceShare(PROD_API_RESERVED_CONCURRENCY),
    authorizerConcurrency: apiInstanceShare(PROD_API_RESERVED_CONCURRENCY),
  },
  api: { rateLimit: 200, burstLimit: 400 },
  release: 'canary',
  secretsEndpointAzs: 2,
  snapshotBeforeMigrations: true,
  backup: { keepDays: 35 },
} as const satisfies Omit<StageConfig, Named>;

const preview = {
  durable: false,
  sharedCluster: true,
  roleBoundary: true,
  removalPolicy: RemovalPolicy.DESTROY,
  logRetention: RetentionDays.ONE_WEEK,
  database: {
    minCapacity: 0,
    maxCapacity: 2,
    autoPause: Duration.minutes(5),
    proxy: false,
    readers: 0,
    backupRetention: Duration.days(1),
    deletionProtection: false,
    performanceInsights: false,
    removalPolicy: RemovalPolicy.DESTROY,
  },
  functions: { memoryMb: 512 },
  api: { rateLimit: 20, burstLimit: 40 },
  release: 'all-at-once',
  secretsEndpointAzs: 1,
  snapshotBeforeMigrations: false,
} as const satisfies Omit<StageConfig, Named>;

export interface StageOptions {
  readonly alarmEmail?: string;
  readonly alarmHttpsUrl?: string;
  /** `-c proxy=true`: a preview with prod's database path (the `staging` stage has it anyway). */
  readonly proxy?: boolean;
  /** `-c domainName=…`, only together with `-c certificateArn=…`. */
  readonly domainName?: string;
  readonly certificateArn?: string;
  /** `-c backupCopyVaultArn=…`: a vault in a backup account for the backup plan's copies (prod). */
  readonly backupCopyVaultArn?: string;
  /** `-c webhooks=true`: webhook delivery on this stage (not on a branch preview). */
  readonly webhooks?: boolean;
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/;

/** Both or neither; each in its own shape, so a typo fails the synth instead of the deploy. */
function customDomain({ domainName, certificateArn }: StageOptions): CustomDomainSettings | undefined {
  if (!domainName && !certificateArn) return undefined;
  if (!domainName || !certificateArn) {
    throw new Error('a custom domain needs both -c domainName=<host> and -c certificateArn=<ACM ARN>');
  }
  if (!HOSTNAME.test(domainName)) {
    throw new Error(`-c domainName must be a lower-case host name, not ${JSON.stringify(domainName)}`);
  }
  if (!CERTIFICATE_ARN.test(certificateArn)) {
    throw new Error(
      `-c certificateArn must be an ACM certificate ARN, not ${JSON.stringify(certificateArn)}`,
    );
  }
  return { name: domainName, certificateArn };
}

/** Settings for a stage name that is already sanitised. Prod refuses to exist without an alarm destination. */
export function stageConfig(stage: string, options: StageOptions = {}): StageConfig {
  if (options.alarmHttpsUrl && !/^https:\/\/[^\s/]+/.test(options.alarmHttpsUrl)) {
    throw new Error(`-c alarmHttpsUrl must be an https:// URL, not ${JSON.stringify(options.alarmHttpsUrl)}`);
  }
  const named = {
    stage,
    stackName: `${STACK_PREFIX}-${stage}`,
    alarmEmail: options.alarmEmail,
    alarmHttpsUrl: options.alarmHttpsUrl,
    domain: customDomain(options),
    webhooks: options.webhooks ?? false,
  };
  const copyVaultArn = options.backupCopyVaultArn;
  if (copyVaultArn && !BACKUP_VAULT_ARN.test(copyVaultArn)) {
    throw new Error(`-c backupCopyVaultArn must be a backup vault ARN, not ${JSON.stringify(copyVaultArn)}`);
  }
  if (copyVaultArn && stage !== PROD) {
    throw new Error('-c backupCopyVaultArn applies to prod only: no other stage has a backup plan');
  }
  if (stage === PROD) {
    if (!options.alarmEmail) {
      throw new Error('prod needs an alarm destination: -c alarmEmail=<address> (docs/deploying.md)');
    }
    return { ...production, ...named, backup: { ...production.backup, copyVaultArn } };
  }
  if (stage === SANDBOX) {
    if (options.proxy) throw new Error('-c proxy=true does not apply to the sandbox');
    // A preview's settings on a network and cluster of its own (no preview base), deployable with
    // the bootstrap alone: no role boundary to refer to.
    return { ...preview, ...named, sharedCluster: false, roleBoundary: false };
  }
  if (!(options.proxy || stage === STAGING)) {
    // The delivery function needs a way out of a VPC: a branch preview has no VPC of its own.
    if (options.webhooks)
      throw new Error(
        '-c webhooks=true needs a stage with its own network: prod, staging, the sandbox or -c proxy=true',
      );
    return { ...preview, ...named };
  }
  // The proxy holds connections open, so the writer would not pause anyway: prod's minimum instead.
  const { autoPause: _, ...database } = preview.database;
  // Its own network and cluster: reserved concurrency bounds the connections as in prod.
  return {
    ...preview,
    ...named,
    sharedCluster: false,
    functions: { ...preview.functions, routeConcurrency: 5, authorizerConcurrency: 5 },
    database: { ...database, proxy: true, minCapacity: production.database.minCapacity },
  };
}
