import { Aws } from 'aws-cdk-lib';
import { Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BOUNDARY_CALLS } from './aws-calls.ts';
import { STACK_PREFIX } from './stage-name.ts';

/**
 * The two managed policies each account (preview, prod) holds, created by the deploy-identity
 * stack (infra/ci-stack.ts) before the account is bootstrapped:
 * - the CloudFormation execution policy, passed to `cdk bootstrap --cloudformation-execution-policies`
 *   instead of AdministratorAccess: only the services the API stacks use;
 * - the permissions boundary every role of the API stacks carries (infra/stack.ts), so that no
 *   function, provider or hook role can ever do more than these services, whatever its policies say.
 *   The execution policy refuses to create a role without it, or to change or remove it.
 */
export const EXECUTION_POLICY_NAME = `${STACK_PREFIX}-cfn-execution`;
export const BOUNDARY_POLICY_NAME = `${STACK_PREFIX}-role-boundary`;

/**
 * The IAM service prefix of each CloudFormation namespace the stacks use: a resource type whose
 * namespace is missing here fails test/infra/account-policies.test.ts, so a new kind of resource
 * is a decision about what the accounts allow, not a surprise at deploy time.
 */
export const SERVICES_BY_NAMESPACE: Readonly<Record<string, readonly string[]>> = {
  'AWS::ApiGateway': ['apigateway'],
  'AWS::ApiGatewayV2': ['apigateway'],
  'AWS::Backup': ['backup', 'backup-storage'],
  'AWS::CloudFormation': ['cloudformation'],
  'AWS::CloudWatch': ['cloudwatch'],
  'AWS::CodeDeploy': ['codedeploy'],
  'AWS::EC2': ['ec2'],
  'AWS::Events': ['events'],
  'AWS::IAM': ['iam'],
  'AWS::KMS': ['kms'],
  'AWS::Lambda': ['lambda'],
  'AWS::Logs': ['logs'],
  // The master secrets are RDS's (manageMasterUserPassword): creating a cluster creates its secret.
  'AWS::RDS': ['rds', 'secretsmanager'],
  'AWS::SecretsManager': ['secretsmanager'],
  'AWS::SNS': ['sns'],
  'AWS::SQS': ['sqs'],
  'AWS::SSM': ['ssm'],
  'AWS::WAFv2': ['wafv2'],
  // Custom resources are Lambda-backed: CloudFormation invokes their provider functions.
  Custom: ['lambda'],
  // CDK's own version metadata: no API call.
  'AWS::CDK': [],
};

/** `AWS::RDS::DBCluster` → `AWS::RDS`; `Custom::Trigger` → `Custom`. */
export const namespaceOf = (type: string) =>
  type.startsWith('Custom::') ? 'Custom' : type.split('::').slice(0, 2).join('::');

const services = () => [...new Set(Object.values(SERVICES_BY_NAMESPACE).flat())].sort();

/** The boundary's ARN in the account the policies are deployed to, as the stacks name it. */
export const boundaryArn = () => policyArn(BOUNDARY_POLICY_NAME);

export function executionPolicyDocument(): PolicyDocument {
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'StackServices',
        actions: services().map((service) => `${service}:*`),
        resources: ['*'],
      }),
      // A role comes into being inside the boundary or not at all, and keeps it: whatever a template
      // (or a branch's copy of one) asks for, CloudFormation cannot make or change a role into one
      // that reaches beyond the runtime services.
      new PolicyStatement({
        sid: 'RolesInsideTheBoundary',
        effect: Effect.DENY,
        actions: ['iam:CreateRole', 'iam:PutRolePermissionsBoundary'],
        resources: ['*'],
        conditions: { StringNotEquals: { 'iam:PermissionsBoundary': boundaryArn() } },
      }),
      // The policies of a role without the boundary (the execution role, the deploy roles, any
      // administrator's) are never touched.
      new PolicyStatement({
        sid: 'PoliciesOnlyInsideTheBoundary',
        effect: Effect.DENY,
        actions: [
          'iam:AttachRolePolicy',
          'iam:DeleteRolePolicy',
          'iam:DetachRolePolicy',
          'iam:PutRolePolicy',
        ],
        resources: ['*'],
        conditions: { StringNotEquals: { 'iam:PermissionsBoundary': boundaryArn() } },
      }),
      // Trust, passing and deleting, which IAM cannot condition on the boundary: the stacks' own
      // roles only, which CloudFormation names after their stack.
      new PolicyStatement({
        sid: 'OnlyTheStacksRoles',
        effect: Effect.DENY,
        actions: [
          'iam:DeleteRole',
          'iam:PassRole',
          'iam:UpdateAssumeRolePolicy',
          'iam:UpdateRole',
          'iam:UpdateRoleDescription',
        ],
        notResources: [stackRoleArns()],
      }),
      // Roles are created by the stacks (functions, providers, CodeDeploy, the backup plan); never
      // users, groups, keys or identity providers.
      new PolicyStatement({
        sid: 'NoUsers',
        effect: Effect.DENY,
        actions: [
          'iam:*AccessKey*',
          'iam:*Group*',
          'iam:*LoginProfile*',
          'iam:*MFADevice*',
          'iam:*OpenIDConnectProvider*',
          'iam:*SAMLProvider*',
          'iam:*ServiceSpecificCredential*',
          'iam:*SSHPublicKey*',
          'iam:*User*',
        ],
        resources: ['*'],
      }),
      // Nothing may loosen the boundaries or the policies that hold them.
      new PolicyStatement({
        sid: 'KeepBoundaries',
        effect: Effect.DENY,
        actions: [
          'iam:DeleteRolePermissionsBoundary',
          'iam:CreatePolicyVersion',
          'iam:DeletePolicy',
          'iam:DeletePolicyVersion',
          'iam:SetDefaultPolicyVersion',
        ],
        resources: [policyArn(BOUNDARY_POLICY_NAME), policyArn(EXECUTION_POLICY_NAME), roleArn('*')],
      }),
    ],
  });
}

/** What any role of the API stacks may ever do: the runtime services, and no IAM, accounts or organisations. */
export function boundaryPolicyDocument(): PolicyDocument {
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'RuntimeServices',
        actions: [
          'backup:*',
          'cloudwatch:*',
          'codedeploy:*',
          'ec2:*',
          'kms:*',
          'lambda:*',
          'logs:*',
          'rds:*',
          'rds-db:*',
          'secretsmanager:*',
          'sns:*',
          'ssm:GetParameter*',
          'xray:*',
          'tag:GetResources',
        ],
        resources: ['*'],
      }),
      // Beyond those, exactly the calls of infra/aws-calls.ts that need more.
      ...BOUNDARY_CALLS.map(
        ({ sid, actions, resources }) =>
          new PolicyStatement({
            sid,
            actions: [...actions],
            resources: resources({ partition: Aws.PARTITION, region: Aws.REGION, account: Aws.ACCOUNT_ID }),
          }),
      ),
    ],
  });
}

const policyArn = (name: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:policy/${name}`;
/** The roles CloudFormation creates in the API stacks: `<stack name>-<logical id>-<suffix>`. */
export const stackRoleArns = () => roleArn(`${STACK_PREFIX}-*`);
const roleArn = (name: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${name}`;
