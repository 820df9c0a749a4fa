import { Duration } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#contract/routes.ts';
import type { StageConfig } from '../stage.ts';
import { type ApiFunctions, constructId } from './functions.ts';

/** The header the authorizer reads; also the cache key for its answers. */
export const IDENTITY_SOURCE = '$request.header.Authorization';

// One JSON line per request. Never the Authorization header: it carries the API key.
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  workspaceId: '$context.authorizer.workspaceId',
  principalId: '$context.authorizer.principalId',
};

/**
 * The HTTP API: one route per row of the route table, each behind the bearer authorizer, on a
 * `$default` stage with access logs and throttling. No CORS: see docs/decisions.md.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(
    scope: Construct,
    id: string,
    { config, functions }: { config: StageConfig; functions: ApiFunctions },
  ) {
    super(scope, id);
    const authorizer = new HttpLambdaAuthorizer('BearerAuthorizer', functions.authorizer, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [IDENTITY_SOURCE],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: config.stackName,
      description: `Voice agent administration API (${config.stage})`,
      createDefaultStage: false,
    });
    for (const [route, fn] of functions.byRoute) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${constructId(route.name)}Integration`, fn),
        authorizer,
      });
    }
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.api.rateLimit, burstLimit: config.api.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  /** `https://<id>.execute-api.<region>.amazonaws.com/` */
  get url(): string {
    return this.stage.url;
  }
}
