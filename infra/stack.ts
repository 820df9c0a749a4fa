import { type App, CfnOutput, Stack, Tags, Validations } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { type IRole, ManagedPolicy, PermissionsBoundary } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { authorizer, type Route } from '#contract/routes.ts';
import { BOUNDARY_POLICY_NAME } from './account-policies.ts';
import { Api } from './constructs/api.ts';
import { CustomDomain } from './constructs/custom-domain.ts';
import { Backups, DataKey } from './constructs/data-safety.ts';
import { DATABASE_NAME, Database, type DatabaseAccess } from './constructs/database.ts';
import { ApiFunctions } from './constructs/functions.ts';
import { Migrations } from './constructs/migrations.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { Network, type NetworkPlacement } from './constructs/network.ts';
import { PreviewBaseImports, PreviewDatabase } from './constructs/preview-database.ts';
import { giveProvidersLogGroups } from './constructs/provider-logs.ts';
import { Releases } from './constructs/releases.ts';
import { Schedules } from './constructs/schedules.ts';
import { UsagePlanKeysFunction } from './constructs/usage-plan-keys.ts';
import { UsagePlans } from './constructs/usage-plans.ts';
import { type ApiWaf, protectStage } from './constructs/waf.ts';
import { Webhooks } from './constructs/webhooks.ts';
import type { StageConfig } from './stage.ts';

/**
 * One stage of the API: network, database, the functions of the route table behind the REST
 * API (usage plans per tier, a web ACL where durable), the migration trigger that runs before them, and alarms. Environment-agnostic, so that
 * `cdk synth` needs no AWS account; `cdk deploy` takes account and region from the credentials.
 */
export class AdminApiStack extends Stack {
  readonly network: NetworkPlacement;
  readonly database: DatabaseAccess;
  readonly functions: ApiFunctions;
  readonly migrations: Migrations;
  readonly api: Api;
  /** The scheduled work: the stale-session sweep and the outbox relay. */
  readonly schedules: Schedules;
  /** Where the relay publishes the outbox's events (docs/api.md); none in a branch preview. */
  readonly eventBus?: EventBus;
  readonly monitoring: Monitoring;
  /** Webhook delivery: only with `-c webhooks=true` (config.webhooks). */
  readonly webhooks?: Webhooks;
  /**
   * CodeDeploy releases of the API functions: the authorizer's here, each nested route stack's
   * beside its routes. None in a branch preview: CloudFormation updates its functions in place.
   */
  readonly releases: readonly Releases[] = [];
  /** Stacks with a cluster of their own (a branch preview's database is on the base's cluster). */
  readonly dataKey?: DataKey;
  readonly backups?: Backups;
  readonly usagePlans: UsagePlans;
  readonly waf?: ApiWaf;
  /** `-c domainName=… -c certificateArn=…`: the API's only address then. */
  readonly customDomain?: CustomDomain;

  constructor(scope: Construct, id: string, { config, routes }: AdminApiStackProps) {
    const tags = { project: 'voice-agent-admin-api', stage: config.stage };
    super(scope, id, {
      description: `Voice agent administration API: ${config.durable ? 'production' : 'preview'} stage ${config.stage}`,
      terminationProtection: config.durable,
      // Stack tags (with explicitStackTags, Tags.of below tags only the template's resources):
      // CloudFormation copies these onto everything it creates, which the preview deploy role's
      // `stage=prod` deny must reach.
      tags,
    });
    // A branch preview keeps its database on the preview base's cluster (infra/preview-base.ts).
    let owned: { network: Network; database: Database } | undefined;
    let databaseName = DATABASE_NAME;
    let masterRole: IRole | undefined;
    if (config.sharedCluster) {
      const base = new PreviewBaseImports(this, 'PreviewBase');
      const database = new PreviewDatabase(this, 'Database', { config, base });
      this.network = base;
      this.database = database;
      databaseName = database.databaseName;
      masterRole = database.masterRole;
    } else {
      const network = new Network(this, 'Network', { config });
      this.dataKey = new DataKey(this, 'DataKey', { config });
      const database = new Database(this, 'Database', { config, network, key: this.dataKey.forGrants });
      owned = { network, database };
      this.network = network;
      this.database = database;
      if (config.backup) {
        this.backups = new Backups(this, 'Backups', {
          config,
          database,
          key: this.dataKey.forGrants,
          keepDays: config.backup.keepDays,
        });
      }
    }
    this.functions = new ApiFunctions(this, 'Functions', {
      config,
      network: this.network,
      database: this.database,
      routes,
    });
    this.migrations = new Migrations(this, 'Migrations', {
      config,
      network: this.network,
      database: this.database,
      runBefore: this.functions.all,
      owned: owned && { cluster: owned.database.cluster, network: owned.network },
      role: masterRole,
    });
    this.api = new Api(this, 'Api', { config, functions: this.functions });
    const relay = this.functions.relay;
    if (relay && owned) {
      this.eventBus = new EventBus(this, 'EventBus', { eventBusName: `voice-agent-admin-${config.stage}` });
      relay.addEnvironment('EVENT_BUS_NAME', this.eventBus.eventBusName);
      this.eventBus.grantPutEventsTo(relay);
      owned.network.allowEventBridgeFrom(relay, 'EventBridge from the outbox relay');
      new CfnOutput(this, 'EventBusName', {
        value: this.eventBus.eventBusName,
        description: "The event bus the API's events are published to (rules subscribe here)",
      });
    }
    if (config.webhooks && relay && owned) {
      const sealing = new Set(['functions/webhooks/create.ts', 'functions/webhooks/rotate.ts']);
      this.webhooks = new Webhooks(this, 'Webhooks', {
        config,
        network: owned.network,
        database: this.database,
        relay,
        sealers: [...this.functions.functionByRoute]
          .filter(([route]) => sealing.has(route.entry))
          .map(([, fn]) => fn),
      });
    }
    // Per-workspace limits: one usage plan per tier, the admin function keeps each workspace's key.
    this.usagePlans = new UsagePlans(this, 'UsagePlans', { api: this.api.restApi, stage: this.api.stage });
    const usageKeys = new UsagePlanKeysFunction(this, 'UsagePlanKeys', {
      config,
      usagePlans: this.usagePlans,
      admin: this.functions.admin,
      network: this.network,
      shareAdminRole: config.sharedCluster,
    });
    this.schedules = new Schedules(this, 'Schedules', {
      sweep: this.functions.sweep,
      relay,
      sweepEnabled: !config.sharedCluster,
      usageKeys: config.durable ? usageKeys.function : undefined,
    });
    this.usagePlans.meterThrough(this.functions.authorizerFunction);
    this.waf = protectStage(
      this,
      { stage: this.api.stage, logRetention: config.logRetention, removalPolicy: config.removalPolicy },
      config.durable,
    );
    // A branch preview is one of many in its account: its API alarms only (no per-function ones,
    // which only roll back releases it does not have) and no dashboard, so that it costs cents idle.
    const fleet = config.sharedCluster;
    const routeFunctionOf = new Map(
      [...this.functions.functionByRoute].map(([route, fn]) => [route.name, { route, fn }] as const),
    );
    this.monitoring = new Monitoring(this, 'Monitoring', {
      config,
      api: this.api,
      functions: fleet
        ? new Map()
        : new Map([
            ...[...routeFunctionOf].map(([name, { fn }]) => [name, fn] as const),
            [authorizer.name, this.functions.authorizerFunction],
          ]),
      database: owned?.database,
      scopeOf: (name) => {
        const route = routeFunctionOf.get(name)?.route;
        return route && this.functions.stackOf.get(route);
      },
      dashboard: !fleet,
      webhookQueues: this.webhooks && { queue: this.webhooks.queue, deadLetters: this.webhooks.deadLetters },
    });
    if (!fleet) this.releases = this.release(config);
    if (config.domain) {
      this.customDomain = new CustomDomain(this, 'CustomDomain', { domain: config.domain, api: this.api });
      // What the operator's DNS record points at (docs/deploying.md): an alias, or a CNAME outside Route 53.
      new CfnOutput(this, 'ApiDomainTarget', {
        value: this.customDomain.domainName.domainNameAliasDomainName,
        description: `DNS: ${config.domain.name} as an alias (A/AAAA) or CNAME of this name`,
      });
      new CfnOutput(this, 'ApiDomainHostedZoneId', {
        value: this.customDomain.domainName.domainNameAliasHostedZoneId,
        description: 'DNS: the hosted zone id of a Route 53 alias record to ApiDomainTarget',
      });
    }
    // Everything that calls the API (smoke tests, CI summaries, the docs) reads this one output.
    new CfnOutput(this, 'ApiUrl', {
      value: this.customDomain?.url ?? this.api.url,
      description: 'Base URL of the REST API (its stage included)',
    });
    new CfnOutput(this, 'AdminFunctionName', {
      value: this.functions.admin.functionName,
      description:
        'Admin commands (npm run workspace/token/db:seed/smoke -- --stage <stage>): IAM invoke only',
    });
    // The preview teardown finds the API keys the admin function made through these plans (cli/aws-stage.ts).
    new CfnOutput(this, 'UsagePlanIds', {
      value: this.usagePlans.planIdsJson(),
      description: "Each tier's usage plan id (JSON): the workspaces' API keys are in them",
    });
    // ... and by name, also a key whose placement in a plan failed (contract/tiers.ts usageKeyNamePrefix).
    new CfnOutput(this, 'UsageKeyPrefix', {
      value: this.usagePlans.keyPrefix,
      description: "The stage's usage key prefix: its API keys' names begin vaw_<prefix>_",
    });
    new CfnOutput(this, 'DatabaseName', {
      value: config.sharedCluster ? databaseName : `${databaseName} (own cluster)`,
      description: config.sharedCluster
        ? 'This branch’s database on the preview base cluster (npm run stage -- list)'
        : 'The database on this stage’s own cluster',
    });
    // Every role this stack creates (functions, providers, hook, CodeDeploy, backup) stays inside
    // the account's boundary, created with the deploy identity (infra/account-policies.ts), whose
    // execution policy refuses a role without it: no role may come from outside the template.
    if (config.roleBoundary) {
      PermissionsBoundary.of(this).apply(
        ManagedPolicy.fromManagedPolicyName(this, 'RoleBoundary', BOUNDARY_POLICY_NAME),
      );
    }
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value);
    giveProvidersLogGroups(this, config);
  }

  /** The authorizer's release here, each nested route stack's beside its routes (no cross-stack cycle). */
  private release(config: StageConfig): Releases[] {
    const aliasesIn = new Map<Construct, Map<string, Alias>>([
      [this, new Map([[authorizer.name, this.functions.authorizer as Alias]])],
    ]);
    for (const [route, alias] of this.functions.byRoute) {
      const where = this.functions.stackOf.get(route) ?? this;
      const group = aliasesIn.get(where) ?? new Map<string, Alias>();
      group.set(route.name, alias as Alias);
      aliasesIn.set(where, group);
    }
    return [...aliasesIn].map(([where, aliases]) => new Releases(where, 'Releases', { config, aliases }));
  }

  /** The release (CodeDeploy deployment group) of one API function by name, if it has one. */
  releaseOf(name: string) {
    for (const releases of this.releases) {
      const group = releases.groups.get(name);
      if (group) return { releases, group };
    }
    return undefined;
  }
}

export interface AdminApiStackProps {
  readonly config: StageConfig;
  /** The rows to deploy: the route table unless given (tests add rows to measure room). */
  readonly routes?: readonly Route[];
}

/** The whole app for one stage: its stack, checked by cdk-nag's AWS Solutions rules on every synth. */
export function defineApp(app: App, config: StageConfig, routes?: readonly Route[]): AdminApiStack {
  const stack = new AdminApiStack(app, config.stackName, { config, routes });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
