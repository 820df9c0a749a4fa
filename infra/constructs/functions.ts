import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, type IFunction, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizer, type Route, routeKey, routeList } from '#contract/routes.ts';
import { REQUEST_TIMEOUT_MS } from '#db/client.ts';
import type { StageConfig } from '../stage.ts';
import type { DatabaseAccess } from './database.ts';
import { serviceFunction } from './lambda.ts';
import type { NetworkPlacement } from './network.ts';

/**
 * Well under API Gateway's 30 s, and above the per-request database deadline (db/client.ts), so a
 * hung database is answered 503 by the handler, never cut off by Lambda.
 */
export const ROUTE_TIMEOUT = Duration.millis(REQUEST_TIMEOUT_MS + 3_000);
/** API Gateway waits at most 10 s for an authorizer; past its database deadline it defers. */
export const AUTHORIZER_TIMEOUT = Duration.seconds(10);
/** No gateway in front: room for the demo seed, and for a paused preview database to resume. */
export const ADMIN_TIMEOUT = Duration.seconds(60);
/** The alias API Gateway invokes; CodeDeploy moves it from version to version (infra/constructs/releases.ts). */
export const LIVE_ALIAS = 'live';
/** The admin function's module; it has no route (invoked through IAM only). */
export const ADMIN_ENTRY = 'functions/admin.ts';
/** Operators and CI run admin commands one at a time: two instances (connections) are plenty. */
export const ADMIN_CONCURRENCY = 2;
/**
 * The stale-session sweep's module, which also purges the published events past the retention
 * window (scheduled by infra/constructs/schedules.ts, no route).
 */
export const SWEEP_ENTRY = 'functions/sessions/sweep.ts';
/** A statement for the sweep and a few short ones for the purge, once a minute: a run never overlaps the next. */
export const SWEEP_TIMEOUT = Duration.seconds(30);
/** The outbox relay's module (scheduled by infra/constructs/schedules.ts, no route). */
export const RELAY_ENTRY = 'functions/events/relay.ts';
/** One batch per run (a transaction within the database deadline), once a minute. */
export const RELAY_TIMEOUT = Duration.seconds(30);

/** `create-agent` → `CreateAgent`: construct ids, and so logical ids, say which route they serve. */
export const constructId = (name: string) =>
  name.replace(/(^|-)([a-z0-9])/g, (_, _dash, letter: string) => letter.toUpperCase());

/**
 * Route functions per nested stack where routes have stacks of their own: each route brings about
 * 13 resources with its release and alarms, so 10 keep a nested stack near 150 of CloudFormation's
 * 500, and the parent grows by one resource per 10 routes (docs/decisions.md, "Stacks with room").
 */
export const ROUTES_PER_STACK = 10;

export interface ApiFunctionsProps {
  readonly config: StageConfig;
  readonly network: NetworkPlacement;
  readonly database: DatabaseAccess;
  /** The rows to deploy: the route table, unless a test adds rows. */
  readonly routes?: readonly Route[];
}

/**
 * One function per row of the route table, plus the authorizer and the admin function, all
 * connecting as the app role (through the proxy where there is one), each with reserved
 * concurrency so that together they cannot open more connections than the database has to give
 * (docs/deploying.md); branch previews reserve none and are bounded by the API's throttle. The admin function gets no route and no invoke permission: only principals
 * of the account whose IAM policies allow `lambda:InvokeFunction` can call it.
 */
export class ApiFunctions extends Construct {
  /**
   * What API Gateway integrates: each route function's `live` alias, never `$LATEST`, where
   * releases go through CodeDeploy; in a branch preview (no releases) the function itself.
   */
  readonly byRoute: ReadonlyMap<Route, Alias | IFunction>;
  /** The authorizer's `live` alias (its function in a branch preview). */
  readonly authorizer: Alias | IFunction;
  /**
   * Where each route's function, alias, method, alarms and release are: one of the nested route
   * stacks on stages with room to grow, this construct's stack in a branch preview.
   */
  readonly stackOf: ReadonlyMap<Route, Construct>;
  /** The nested stacks of route functions (none in a branch preview). */
  readonly routeStacks: readonly NestedStack[] = [];
  /** The functions behind those aliases: their settings, metrics and code. */
  readonly functionByRoute: ReadonlyMap<Route, LambdaFunction>;
  readonly authorizerFunction: LambdaFunction;
  readonly admin: LambdaFunction;
  /** The stale-session sweep, run on a schedule. */
  readonly sweep: LambdaFunction;
  /**
   * The outbox relay to the stage's event bus, run on a schedule; only where the stack has a
   * network of its own (a branch preview's functions have no route to EventBridge).
   */
  readonly relay?: LambdaFunction;
  /** Every function here: the migration trigger runs before any of them is updated. */
  readonly all: readonly LambdaFunction[];

  constructor(scope: Construct, id: string, props: ApiFunctionsProps) {
    super(scope, id);
    const { config, network, database, routes = routeList } = props;
    const securityGroup = network.securityGroup(this, 'SecurityGroup', 'API functions');
    // A branch preview is one of many in its account: one role and one route log group for all
    // its API functions, instead of one each (docs/deploying.md, "Quotas and idle cost").
    const fleet = config.sharedCluster;
    const role = fleet ? sharedFunctionRole(this) : undefined;
    const routeLogs = fleet
      ? new LogGroup(this, 'RouteLogs', {
          retention: config.logRetention,
          removalPolicy: config.removalPolicy,
        })
      : undefined;
    const make = (
      name: string,
      entry: string,
      description: string,
      timeout: Duration,
      reservedConcurrency: number | undefined,
      where: Construct = this,
      logGroup?: LogGroup,
      ownRole = false,
    ) => {
      const fn = serviceFunction(where, constructId(name), {
        entry,
        description,
        timeout,
        config,
        network,
        securityGroup,
        reservedConcurrency,
        role: ownRole ? undefined : role,
        logGroup,
      });
      database.connect(fn, securityGroup, 'pooled');
      return fn;
    };
    const stackOf = new Map<Route, Construct>();
    for (const [index, route] of routes.entries()) {
      if (fleet) {
        stackOf.set(route, this);
        continue;
      }
      const group = Math.floor(index / ROUTES_PER_STACK);
      const stack =
        this.routeStacks[group] ??
        new NestedStack(this, `Routes${group + 1}`, {
          description: `Route functions ${group * ROUTES_PER_STACK + 1}-${group * ROUTES_PER_STACK + ROUTES_PER_STACK}`,
        });
      if (!this.routeStacks[group]) (this.routeStacks as NestedStack[]).push(stack);
      stackOf.set(route, stack);
    }
    this.stackOf = stackOf;
    this.functionByRoute = new Map(
      routes.map((route) => [
        route,
        make(
          route.name,
          route.entry,
          routeKey(route),
          ROUTE_TIMEOUT,
          config.functions.routeConcurrency,
          stackOf.get(route),
          routeLogs,
        ),
      ]),
    );
    this.authorizerFunction = make(
      authorizer.name,
      authorizer.entry,
      'Bearer API key authorizer',
      AUTHORIZER_TIMEOUT,
      config.functions.authorizerConcurrency,
    );
    this.admin = make(
      'admin',
      ADMIN_ENTRY,
      'Admin commands: workspaces, API keys, demo seed (IAM invoke only)',
      ADMIN_TIMEOUT,
      // A branch preview reserves nothing (infra/stage.ts): prod's concurrency is never taken by previews.
      config.sharedCluster ? undefined : ADMIN_CONCURRENCY,
      this,
      undefined,
      // Its own role even in a preview: its usage-plan grant waits for the API's stage, which
      // waits for the authorizer and the routes, which would wait for a role they shared with it.
      true,
    );
    // Settings the admin function reads (functions/admin.ts): only previews may be seeded.
    this.admin.addEnvironment('STAGE', config.stage);
    this.admin.addEnvironment('DEMO_SEED', config.durable ? 'refused' : 'allowed');
    this.sweep = make(
      'session-sweep',
      SWEEP_ENTRY,
      'Completes sessions whose heartbeat went stale, purges published events past retention (scheduled)',
      SWEEP_TIMEOUT,
      // One at a time is all a schedule needs; previews reserve nothing (see above).
      config.sharedCluster ? undefined : 1,
    );
    if (!config.sharedCluster) {
      // One at a time: a second run would only skip the rows the first holds.
      this.relay = make(
        'event-relay',
        RELAY_ENTRY,
        'Publishes outbox events to the event bus (scheduled)',
        RELAY_TIMEOUT,
        1,
      );
    }
    // A version per deployment whose code or configuration changed; the alias follows through
    // CodeDeploy. A branch preview has no releases: API Gateway invokes the function itself.
    const live = (fn: LambdaFunction): Alias | IFunction =>
      fleet ? fn : new Alias(fn, 'Live', { aliasName: LIVE_ALIAS, version: fn.currentVersion });
    this.byRoute = new Map([...this.functionByRoute].map(([route, fn]) => [route, live(fn)]));
    this.authorizer = live(this.authorizerFunction);
    this.all = [...this.functionByRoute.values(), this.authorizerFunction, this.admin, this.sweep];
    if (this.relay) this.all = [...this.all, this.relay];
  }
}

/** One role for the API's functions in a branch preview (routes, authorizer, sweep): what each would get, once. */
function sharedFunctionRole(scope: Construct): Role {
  const role = new Role(scope, 'SharedRole', {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: "The route functions', the authorizer's and the sweep's of this branch preview",
    managedPolicies: [
      ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole'),
      ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole'),
    ],
  });
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'AWS-managed log writes, as every function of its own would get (constructs/lambda.ts)',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason: 'ENI create/describe/delete a VPC function needs, on Resource *: no narrower resource exists',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and PutTelemetryRecords accept no resource narrower than *',
    },
  );
  return role;
}
