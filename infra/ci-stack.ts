import { type App, Aws, CfnOutput, CliCredentialsStackSynthesizer, Stack, Validations } from 'aws-cdk-lib';
import {
  Effect,
  type IOidcProvider,
  ManagedPolicy,
  OidcProviderNative,
  PolicyDocument,
  PolicyStatement,
  Role,
  WebIdentityPrincipal,
} from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import {
  BOUNDARY_POLICY_NAME,
  boundaryPolicyDocument,
  EXECUTION_POLICY_NAME,
  executionPolicyDocument,
} from './account-policies.ts';
import { BOUNDARY_CALLS } from './aws-calls.ts';
import { PROD, STACK_PREFIX } from './stage.ts';

export const GITHUB_ISSUER = 'token.actions.githubusercontent.com';
/** Deliberately outside `${STACK_PREFIX}-*`, the pattern the preview role may deploy. */
export const CI_STACK_NAME = `${STACK_PREFIX}DeployIdentity`;
/** CDK's default bootstrap qualifier; `-c bootstrapQualifier=…` when the account was bootstrapped with another. */
export const DEFAULT_QUALIFIER = 'hnb659fds';

/** Previews and prod live in separate accounts; each gets only its own deploy roles. */
export type DeployAccount = 'preview' | 'prod';
export const DEPLOY_ACCOUNTS: readonly DeployAccount[] = ['preview', 'prod'];

export interface CiIdentityProps {
  /** `owner/name` of the GitHub repository whose workflows may deploy. */
  readonly repository: string;
  /** Which account this is: the preview account gets the preview role, the prod account the prod and plan roles. */
  readonly account: DeployAccount;
  /** An account holds one provider per issuer URL: pass its ARN when it already exists. */
  readonly existingProviderArn?: string;
  readonly qualifier?: string;
}

/**
 * Who may deploy, set up once per account by an administrator (docs/deploying.md): GitHub's OIDC
 * provider and the roles of that account, one per GitHub environment: the preview account's
 * preview role; the prod account's prod role and plan role (which prepares change sets and cannot
 * execute them). A prod account holds no role a branch's environment may assume. A workflow job gets a role only when its
 * token's `sub` names the repository and that environment, and the `production` environment only
 * admits `main`: a branch's copy of the workflow cannot reach prod, whatever it passes to cdk.
 *
 * Neither role may assume the CDK bootstrap roles (whose trust is the whole account, and which
 * could deploy any stack); the CDK CLI then says so and deploys with these credentials directly,
 * which are limited to the stacks of their stage pattern, the bootstrap asset bucket, the
 * bootstrap version parameter, and passing the bootstrap CloudFormation execution role.
 */
export class CiIdentityStack extends Stack {
  readonly provider: IOidcProvider;
  /** The preview account's only role. */
  readonly previewRole?: Role;
  /** The prod account's roles. */
  readonly prodRole?: Role;
  /** Prepares prod's change set for review (CI job prod-plan); cannot execute it. */
  readonly prodPlanRole?: Role;
  /** For `cdk bootstrap --cloudformation-execution-policies` in place of AdministratorAccess. */
  readonly executionPolicy: ManagedPolicy;
  /** The permissions boundary of every role the API stacks create. */
  readonly roleBoundary: ManagedPolicy;

  constructor(scope: Construct, id: string, props: CiIdentityProps) {
    super(scope, id, {
      description: 'GitHub OIDC deploy roles of the voice agent administration API',
      // Deployed with the administrator's own credentials, never through the bootstrap roles: the
      // execution policy it creates refuses roles without the boundary (its own deploy roles have
      // none) and any change to the policies that hold the boundary in place.
      synthesizer: new CliCredentialsStackSynthesizer({ qualifier: props.qualifier }),
    });
    if (!DEPLOY_ACCOUNTS.includes(props.account)) {
      throw new Error(
        `-c deployAccount must be one of ${DEPLOY_ACCOUNTS.join(', ')}, not ${JSON.stringify(props.account)}`,
      );
    }
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(props.repository)) {
      throw new Error(`-c githubRepository must be owner/name, not ${JSON.stringify(props.repository)}`);
    }
    this.provider = props.existingProviderArn
      ? OidcProviderNative.fromOidcProviderArn(this, 'GitHub', props.existingProviderArn)
      : new OidcProviderNative(this, 'GitHub', {
          url: `https://${GITHUB_ISSUER}`,
          clientIds: ['sts.amazonaws.com'],
        });
    const qualifier = props.qualifier ?? DEFAULT_QUALIFIER;
    this.executionPolicy = new ManagedPolicy(this, 'ExecutionPolicy', {
      managedPolicyName: EXECUTION_POLICY_NAME,
      description:
        'CloudFormation execution policy of the API stacks (cdk bootstrap --cloudformation-execution-policies)',
      document: executionPolicyDocument(),
    });
    this.roleBoundary = new ManagedPolicy(this, 'RoleBoundary', {
      managedPolicyName: BOUNDARY_POLICY_NAME,
      description: 'Permissions boundary of every role the API stacks create',
      document: boundaryPolicyDocument(),
    });
    for (const policy of [this.executionPolicy, this.roleBoundary]) {
      const statements: { Action?: string | string[] }[] = this.resolve(policy.document.toJSON()).Statement;
      const wildcards = statements.flatMap((st) => [st.Action ?? []].flat()).filter((a) => a.includes('*'));
      const findings = [
        ...new Set(wildcards.map((action) => `Action::${action}`)),
        'Resource::*',
        'Resource::arn:<AWS::Partition>:iam::<AWS::AccountId>:role/*',
        ...BOUNDARY_CALLS.flatMap(({ resources }) =>
          resources({ partition: '<AWS::Partition>', region: '<AWS::Region>', account: '<AWS::AccountId>' }),
        )
          .filter((resource) => resource.includes('*'))
          .map((resource) => `Resource::${resource}`),
      ];
      Validations.of(policy).acknowledge(
        ...findings.map((finding) => ({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason: 'Service-wide on purpose: the ceiling of what the stacks may create and their roles may do',
        })),
      );
    }
    new CfnOutput(this, 'ExecutionPolicyArn', {
      value: this.executionPolicy.managedPolicyArn,
      description: 'cdk bootstrap --cloudformation-execution-policies',
    });

    const prod = `${STACK_PREFIX}-${PROD}`;
    if (props.account === 'preview') {
      this.previewRole = this.deployRole('PreviewDeployRole', props.repository, 'preview', {
        stacks: [`${STACK_PREFIX}-*`],
        functions: `${STACK_PREFIX}-*`,
        deniedStack: prod,
        qualifier,
        listsStacks: true,
      });
      new CfnOutput(this, 'PreviewRoleArn', {
        value: this.previewRole.roleArn,
        description: 'vars.AWS_PREVIEW_ROLE_ARN',
      });
    } else {
      this.prodRole = this.deployRole('ProdDeployRole', props.repository, 'production', {
        stacks: [prod],
        functions: `${prod}-*`,
        qualifier,
      });
      this.prodPlanRole = this.deployRole('ProdPlanRole', props.repository, 'production-plan', {
        stacks: [prod],
        functions: `${prod}-*`,
        qualifier,
        planOnly: true,
      });
      new CfnOutput(this, 'ProdPlanRoleArn', {
        value: this.prodPlanRole.roleArn,
        description: 'vars.AWS_PROD_PLAN_ROLE_ARN',
      });
      new CfnOutput(this, 'ProdRoleArn', {
        value: this.prodRole.roleArn,
        description: 'vars.AWS_PROD_ROLE_ARN',
      });
    }
  }

  private deployRole(
    id: string,
    repository: string,
    environment: 'preview' | 'production' | 'production-plan',
    scope: {
      stacks: string[];
      functions: string;
      deniedStack?: string;
      qualifier: string;
      planOnly?: boolean;
      /** `npm run stage -- list` (the reaper): DescribeStacks without a name, which takes resource `*`. */
      listsStacks?: boolean;
    },
  ): Role {
    const stackArn = (name: string) => arn(`cloudformation:{region}:{account}:stack/${name}/*`);
    // Functions CloudFormation names after their stack: the admin function the seed and smoke commands invoke.
    const functions = arn(`lambda:{region}:{account}:function:${scope.functions}`);
    const assets = arn(`s3:::cdk-${scope.qualifier}-assets-{account}-{region}`);
    const wildcards = [
      [scope.stacks.map(stackArn), 'CloudFormation appends a generated id to each stack ARN'],
      ...(scope.planOnly
        ? []
        : ([
            [[functions], 'CloudFormation names functions after their stack, with a generated suffix'],
          ] as const)),
      [[{ nag: `${assets.nag}/*` }], 'CDK names asset objects by their content hash'],
      [['*'], 'cloudformation:ListStacks, ValidateTemplate and an unnamed DescribeStacks take no resource'],
      ...(scope.listsStacks
        ? ([
            [
              [
                arn('apigateway:{region}::/usageplans/*/keys').nag,
                arn('apigateway:{region}::/apikeys/*').nag,
              ],
              "A preview's keys are found by its usage plans' ids and deleted by theirs, unknown to the template",
            ],
          ] as const)
        : []),
    ] as const;
    const statements = [
      new PolicyStatement({
        sid: 'OwnStacks',
        actions: [
          'cloudformation:CreateChangeSet',
          'cloudformation:DeleteChangeSet',
          'cloudformation:DescribeChangeSet',
          'cloudformation:DescribeStackEvents',
          'cloudformation:DescribeStackResources',
          'cloudformation:DescribeStacks',
          'cloudformation:GetTemplate',
          'cloudformation:GetTemplateSummary',
          'cloudformation:ListChangeSets',
          'cloudformation:ListStackResources',
          // A stack created or updated with stack-level tags (infra/stack.ts) needs these.
          'cloudformation:TagResource',
          'cloudformation:UntagResource',
          // The plan role prepares what a reviewer approves; only the approved job changes the stack.
          ...(scope.planOnly
            ? []
            : [
                'cloudformation:DeleteStack',
                'cloudformation:ExecuteChangeSet',
                'cloudformation:SetStackPolicy',
                'cloudformation:UpdateTerminationProtection',
              ]),
        ].sort(),
        resources: scope.stacks.map((name) => stackArn(name).real),
      }),
      new PolicyStatement({
        sid: 'ListStacks',
        actions: [
          'cloudformation:ListStacks',
          'cloudformation:ValidateTemplate',
          // Every preview with its age and database, for the reaper (cli/aws-stage.ts).
          ...(scope.listsStacks ? ['cloudformation:DescribeStacks'] : []),
        ],
        resources: ['*'],
      }),
      new PolicyStatement({
        sid: 'PassExecutionRole',
        actions: ['iam:PassRole'],
        resources: [arn(`iam::{account}:role/cdk-${scope.qualifier}-cfn-exec-role-{account}-{region}`).real],
        conditions: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
      }),
      new PolicyStatement({
        sid: 'Assets',
        actions: [
          's3:GetObject',
          's3:PutObject',
          's3:ListBucket',
          's3:GetBucketLocation',
          's3:GetEncryptionConfiguration',
        ],
        resources: [assets.real, `${assets.real}/*`],
      }),
      new PolicyStatement({
        sid: 'BootstrapVersion',
        actions: ['ssm:GetParameter', 'ssm:GetParameters'],
        resources: [arn(`ssm:{region}:{account}:parameter/cdk-bootstrap/${scope.qualifier}/version`).real],
      }),
    ];
    if (!scope.planOnly) {
      statements.push(
        new PolicyStatement({
          sid: 'InvokeAdmin',
          actions: ['lambda:InvokeFunction'],
          resources: [functions.real],
        }),
      );
    }
    if (scope.listsStacks) {
      // The reaper's teardown (cli/aws-stage.ts): a preview's API keys, made at run time by its
      // admin function, are found in its usage plans and by name (the collection) and deleted
      // before its stack.
      statements.push(
        new PolicyStatement({
          sid: 'PreviewKeys',
          actions: ['apigateway:GET', 'apigateway:DELETE'],
          resources: [
            arn('apigateway:{region}::/usageplans/*/keys').real,
            arn('apigateway:{region}::/apikeys').real,
            arn('apigateway:{region}::/apikeys/*').real,
          ],
        }),
      );
    }
    if (scope.deniedStack) {
      // By name for the stack itself, by its `stage` tag (a stack tag, which CloudFormation copies
      // onto the functions) for the rest: a name pattern would also catch previews whose stage
      // merely starts with `prod-`.
      statements.push(
        new PolicyStatement({
          sid: 'NeverProd',
          effect: Effect.DENY,
          actions: ['cloudformation:*', 'lambda:*'],
          resources: [stackArn(scope.deniedStack).real],
        }),
        new PolicyStatement({
          sid: 'NeverProdTagged',
          effect: Effect.DENY,
          actions: ['cloudformation:*', 'lambda:*'],
          resources: ['*'],
          conditions: { StringEquals: { 'aws:ResourceTag/stage': PROD } },
        }),
      );
    }
    const role = new Role(this, id, {
      description: `Deploys ${scope.stacks.join(', ')} from GitHub environment ${environment} of ${repository}`,
      assumedBy: new WebIdentityPrincipal(this.provider.oidcProviderArn, {
        StringEquals: {
          [`${GITHUB_ISSUER}:aud`]: 'sts.amazonaws.com',
          [`${GITHUB_ISSUER}:sub`]: `repo:${repository}:environment:${environment}`,
        },
      }),
      inlinePolicies: { Deploy: new PolicyDocument({ statements }) },
    });
    Validations.of(role).acknowledge(
      ...wildcards.flatMap(([patterns, reason]) =>
        patterns.map((pattern) => ({
          id: `AwsSolutions-IAM5[Resource::${typeof pattern === 'string' ? pattern : pattern.nag}]`,
          reason,
        })),
      ),
    );
    return role;
  }
}

/** An ARN with `{partition}`, `{region}`, `{account}` filled in: the template's tokens, and cdk-nag's spelling of them. */
function arn(rest: string) {
  const fill = (partition: string, region: string, account: string) =>
    `arn:${partition}:${rest}`.replaceAll('{region}', region).replaceAll('{account}', account);
  return {
    real: fill(Aws.PARTITION, Aws.REGION, Aws.ACCOUNT_ID),
    nag: fill('<AWS::Partition>', '<AWS::Region>', '<AWS::AccountId>'),
  };
}

/** The CI identity app: `npm run ci-identity:deploy -- -c githubRepository=owner/name -c deployAccount=preview|prod` (infra/ci-app.ts). */
export function defineCiApp(app: App, props: CiIdentityProps): CiIdentityStack {
  const stack = new CiIdentityStack(app, CI_STACK_NAME, props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
