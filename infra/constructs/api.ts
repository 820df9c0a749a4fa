import { Duration, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  AwsIntegration,
  EndpointType,
  IdentitySource,
  LogGroupLogDestination,
  Method,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type Stage,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '#contract/routes.ts';
import { GATEWAY_RESPONSE_HEADERS, gatewayResponses, problemTemplate } from '../gateway-responses.ts';
import type { StageConfig } from '../stage.ts';
import { type ApiFunctions, constructId } from './functions.ts';

/** The header the authorizer reads; also the cache key for its answers. */
export const IDENTITY_SOURCE = IdentitySource.header('Authorization');

/** The REST API stage, the first segment of every path on the execute-api domain. */
export const API_STAGE_NAME = 'v1';

// One JSON line per request. Never the Authorization header: it carries the API key.
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  routeKey: '$context.httpMethod $context.resourcePath',
  path: '$context.path',
  status: '$context.status',
  responseType: '$context.error.responseType',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationStatus: '$context.integration.status',
  integrationError: '$context.integration.error',
  authorizerError: '$context.authorizer.error',
  workspaceId: '$context.authorizer.workspaceId',
  principalId: '$context.authorizer.principalId',
};

const NOT_COGNITO = {
  id: 'AwsSolutions-COG4',
  reason: 'Callers are API keys (bearer tokens) checked by the REQUEST authorizer, not Cognito users',
};

/**
 * The REST API: one resource method per row of the route table, each a Lambda proxy integration
 * (payload 1.0) behind the bearer REQUEST authorizer, on one stage with access logs and
 * throttling, and API Gateway's own answers reshaped into problems (infra/gateway-responses.ts).
 * A REST API rather than an HTTP API: only it takes a WAF web ACL and usage plans
 * (docs/decisions.md). No CORS: see docs/decisions.md.
 */
export class Api extends Construct {
  readonly restApi: RestApi;
  readonly stage: Stage;
  readonly accessLogs: LogGroup;

  constructor(
    scope: Construct,
    id: string,
    { config, functions }: { config: StageConfig; functions: ApiFunctions },
  ) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: config.stackName,
      description: `Voice agent administration API (${config.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // On a custom domain (constructs/custom-domain.ts) that domain is the only way in.
      disableExecuteApiEndpoint: config.domain ? true : undefined,
      // Every body reaches the function base64-encoded, byte for byte: a REST API would pass a
      // text body through as UTF-8 and replace bytes that are not.
      binaryMediaTypes: ['*/*'],
      // Access logs need the account's API Gateway CloudWatch role, an account-wide setting: prod's
      // account gets it from prod, a preview account from the preview base (infra/preview-base.ts),
      // so that deleting a preview never unsets it for the others.
      cloudWatchRole: config.durable,
      cloudWatchRoleRemovalPolicy: config.durable ? config.removalPolicy : undefined,
      deployOptions: {
        stageName: API_STAGE_NAME,
        throttlingRateLimit: config.api.rateLimit,
        throttlingBurstLimit: config.api.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    this.stage = this.restApi.deploymentStage;

    const authorizer = new RequestAuthorizer(this, 'BearerAuthorizer', {
      handler: functions.authorizer,
      identitySources: [IDENTITY_SOURCE],
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_SECONDS),
    });
    for (const [route, fn] of functions.byRoute) {
      const resource = this.restApi.root.resourceForPath(route.path);
      // A Lambda proxy integration of the alias; its invoke permission is made below, beside the method.
      const integration = new AwsIntegration({
        proxy: true,
        service: 'lambda',
        path: `2015-03-31/functions/${fn.functionArn}/invocations`,
      });
      const options = {
        authorizer,
        authorizationType: AuthorizationType.CUSTOM,
        operationName: constructId(route.name),
        // Usage plans meter only methods that need a key (constructs/usage-plans.ts), whose
        // aspect reaches the REST API's own subtree, not a nested route stack.
        apiKeyRequired: true,
      };
      const stack = functions.stackOf.get(route);
      // The method beside its function in the route's nested stack, with its permission; the REST
      // API, its resources and the authorizer stay in the parent.
      const method =
        stack && stack !== functions
          ? new Method(stack, `${constructId(route.name)}Method`, {
              resource,
              httpMethod: route.method,
              integration,
              options,
            })
          : resource.addMethod(route.method, integration, options);
      Validations.of(method).acknowledge(NOT_COGNITO);
      // This method of this API, in any stage: naming the stage would make the route's nested
      // stack wait for the stage, which waits for the deployment, which waits for the method.
      fn.addPermission('ApiInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: this.restApi.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), '*'),
        scope: method,
      });
    }

    for (const response of gatewayResponses) {
      this.restApi.addGatewayResponse(`${response.type}Response`, {
        type: ResponseType.of(response.type),
        statusCode: 'statusCode' in response ? String(response.statusCode) : undefined,
        responseHeaders: {
          ...Object.fromEntries(
            Object.entries({
              ...GATEWAY_RESPONSE_HEADERS,
              ...('headers' in response ? response.headers : {}),
            }).map(([name, value]) => [name, `'${value}'`]),
          ),
          // API Gateway's own request id, as `x-request-id` carries on every answer of ours.
          'x-request-id': 'context.requestId',
        },
        templates: { 'application/json': problemTemplate(response) },
      });
    }

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated by each function against the contract, answering problems that name each field; a gateway validator would duplicate the schemas as models and answer its own 400s',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'The regional web ACL (constructs/waf.ts) is associated with this stage by the stack where durable; previews leave it out for cost',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Access logs record every request with its status and errors; execution logs would go to a log group outside the stack, without retention',
      },
      NOT_COGNITO,
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account role API Gateway needs to write access logs; AWS documents this managed policy for it',
      },
    );
  }

  /** `https://<id>.execute-api.<region>.amazonaws.com/v1/` (disabled on a custom domain: the stack's ApiUrl says which). */
  get url(): string {
    return this.restApi.url;
  }
}
