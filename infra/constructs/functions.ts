import { Duration } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { authorizer, type Route, routeKey, routeList } from '#contract/routes.ts';
import { REQUEST_TIMEOUT_MS } from '#db/client.ts';
import type { StageConfig } from '../stage.ts';
import type { Database } from './database.ts';
import { serviceFunction } from './lambda.ts';
import type { Network } from './network.ts';

/**
 * Well under API Gateway's 30 s, and above the per-request database deadline (db/client.ts), so a
 * hung database is answered 503 by the handler, never cut off by Lambda.
 */
export const ROUTE_TIMEOUT = Duration.millis(REQUEST_TIMEOUT_MS + 3_000);
/** HTTP API waits at most 10 s for an authorizer; past its database deadline it defers. */
export const AUTHORIZER_TIMEOUT = Duration.seconds(10);

/** `create-agent` → `CreateAgent`: construct ids, and so logical ids, say which route they serve. */
export const constructId = (name: string) =>
  name.replace(/(^|-)([a-z0-9])/g, (_, _dash, letter: string) => letter.toUpperCase());

export interface ApiFunctionsProps {
  readonly config: StageConfig;
  readonly network: Network;
  readonly database: Database;
}

/**
 * One function per row of the route table, plus the authorizer, all connecting as the app role
 * (through the proxy where there is one), each with reserved concurrency so that together they
 * cannot open more connections than the database has to give (docs/deploying.md).
 */
export class ApiFunctions extends Construct {
  readonly byRoute: ReadonlyMap<Route, NodejsFunction>;
  readonly authorizer: NodejsFunction;
  /** Every function here: the migration trigger runs before any of them is updated. */
  readonly all: readonly NodejsFunction[];

  constructor(scope: Construct, id: string, { config, network, database }: ApiFunctionsProps) {
    super(scope, id);
    const securityGroup = network.securityGroup(this, 'SecurityGroup', 'API functions');
    const make = (
      name: string,
      entry: string,
      description: string,
      timeout: Duration,
      reservedConcurrency: number,
    ) => {
      const fn = serviceFunction(this, constructId(name), {
        entry,
        description,
        timeout,
        config,
        network,
        securityGroup,
        reservedConcurrency,
      });
      database.connect(fn, securityGroup, 'pooled');
      return fn;
    };
    this.byRoute = new Map(
      routeList.map((route) => [
        route,
        make(route.name, route.entry, routeKey(route), ROUTE_TIMEOUT, config.functions.routeConcurrency),
      ]),
    );
    this.authorizer = make(
      authorizer.name,
      authorizer.entry,
      'Bearer API key authorizer',
      AUTHORIZER_TIMEOUT,
      config.functions.authorizerConcurrency,
    );
    this.all = [...this.byRoute.values(), this.authorizer];
  }
}
