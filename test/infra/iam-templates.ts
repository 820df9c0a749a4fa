/**
 * The synthesized templates as IAM sees them once deployed: every template of a cloud assembly
 * (nested stacks' included), intrinsic functions resolved to plausible deployed values (one
 * account and region, physical names made from stack and logical id), imports resolved through
 * the exports of every template given, roles gathered with their policies and boundary.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import {
  BOUNDARY_POLICY_NAME,
  boundaryPolicyDocument,
  EXECUTION_POLICY_NAME,
  executionPolicyDocument,
} from '#infra/account-policies.ts';
import type { CallSite, DeployedResource } from '#infra/aws-calls.ts';
import { ENTRY_METADATA } from '#infra/constructs/lambda.ts';

export const PARTITION = 'aws';
export const REGION = 'eu-west-1';
export const ACCOUNT = '111122223333';

// biome-ignore lint/suspicious/noExplicitAny: templates are free-form JSON
type Json = any;

export interface CfnTemplate {
  /** The stack's name as CloudFormation would know it. */
  readonly stackName: string;
  readonly file: string;
  readonly body: Json;
  /** Values of the template's parameters (a nested stack's, from its parent), unresolved. */
  parameters: Record<string, { value: Json; in: CfnTemplate }>;
}

/** Every `*.template.json` under a cloud assembly directory, nested stacks' included. */
export function templatesOfAssembly(dir: string): CfnTemplate[] {
  const all = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  const files = all.filter((f) => f.endsWith('.template.json'));
  const templates = files.map((file): CfnTemplate => {
    const base = file.split('/').pop() as string;
    return {
      stackName: base.replace(/(\.nested)?\.template\.json$/, ''),
      file,
      body: JSON.parse(readFileSync(join(dir, file), 'utf8')),
      parameters: {},
    };
  });
  // A nested stack's parameters are its parent's `AWS::CloudFormation::Stack` Parameters; the
  // parent names the template file in its asset metadata, or (asset metadata off, as the tests'
  // synth has it) by the asset hash its TemplateURL ends with, which the assets manifest maps to the file.
  const assetFiles = new Map<string, string>();
  for (const file of all.filter((f) => f.endsWith('.assets.json'))) {
    const manifest = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const [hash, asset] of Object.entries<Json>(manifest.files ?? {}))
      assetFiles.set(hash, asset.source?.path);
  }
  const templateFileOf = (resource: Json): string | undefined => {
    const fromMetadata = resource.Metadata?.['aws:asset:path'];
    if (fromMetadata) return fromMetadata;
    const url = JSON.stringify(resource.Properties?.TemplateURL ?? '');
    const hash = /\/([0-9a-f]{64})\.json/.exec(url)?.[1];
    return hash && assetFiles.get(hash);
  };
  for (const parent of templates) {
    for (const resource of Object.values<Json>(parent.body.Resources ?? {})) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const path = templateFileOf(resource);
      const child = templates.find((t) => path && t.file.endsWith(path));
      if (!child) continue;
      for (const [name, value] of Object.entries(resource.Properties?.Parameters ?? {})) {
        child.parameters[name] = { value, in: parent };
      }
    }
  }
  return templates;
}

const arnOf = (service: string, rest: string, region = REGION, account = ACCOUNT) =>
  `arn:${PARTITION}:${service}:${region}:${account}:${rest}`;

/** Resolves tokens of any template of a set; imports look in every template of the set. */
export class Deployed {
  constructor(readonly templates: readonly CfnTemplate[]) {}

  resourcesOf(t: CfnTemplate): Record<string, Json> {
    return t.body.Resources ?? {};
  }

  nameOf(t: CfnTemplate, id: string): string {
    return `${t.stackName}-${id}`;
  }

  ref(t: CfnTemplate, id: string): string | undefined {
    const pseudo: Record<string, string | undefined> = {
      'AWS::Partition': PARTITION,
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': t.stackName,
      'AWS::StackId': arnOf('cloudformation', `stack/${t.stackName}/1`),
      'AWS::NoValue': undefined,
    };
    if (id in pseudo) return pseudo[id];
    const resource = this.resourcesOf(t)[id];
    if (!resource) {
      const parameter = t.parameters[id];
      if (parameter) return this.resolve(parameter.in, parameter.value);
      const fallback = t.body.Parameters?.[id]?.Default;
      return fallback === undefined ? `parameter:${id}` : fallback;
    }
    const name = this.nameOf(t, id);
    switch (resource.Type) {
      case 'AWS::SecretsManager::Secret':
        return arnOf('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::IAM::ManagedPolicy':
        return `arn:${PARTITION}:iam::${ACCOUNT}:policy/${name}`;
      case 'AWS::SNS::Topic':
        return arnOf('sns', name);
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
      case 'AWS::EC2::SecurityGroup':
        return `sg-${name}`;
      case 'AWS::Lambda::Version':
        return `${this.resolve(t, { 'Fn::GetAtt': [this.functionIdOf(t, resource), 'Arn'] })}:7`;
      default:
        return name;
    }
  }

  private functionIdOf(_t: CfnTemplate, version: Json): string {
    return version.Properties.FunctionName.Ref;
  }

  getAtt(t: CfnTemplate, id: string, attr: string): string {
    const resource = this.resourcesOf(t)[id];
    if (!resource) throw new Error(`${t.stackName}: Fn::GetAtt of unknown resource ${id}`);
    const name = this.nameOf(t, id);
    const type: string = resource.Type;
    const byType: Record<string, Record<string, string>> = {
      'AWS::Lambda::Function': { Arn: arnOf('lambda', `function:${name}`) },
      'AWS::IAM::Role': { Arn: `arn:${PARTITION}:iam::${ACCOUNT}:role/${name}` },
      'AWS::Events::EventBus': { Arn: arnOf('events', `event-bus/${name}`), Name: name },
      'AWS::KMS::Key': { Arn: arnOf('kms', `key/${name}`) },
      'AWS::SQS::Queue': {
        Arn: arnOf('sqs', name),
        QueueName: name,
        QueueUrl: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`,
      },
      'AWS::Logs::LogGroup': { Arn: arnOf('logs', `log-group:${name}:*`) },
      'AWS::RDS::DBCluster': {
        DBClusterResourceId: `cluster-${name}`,
        'MasterUserSecret.SecretArn': arnOf('secretsmanager', `secret:rds!cluster-${name}-AbCdEf`),
        'Endpoint.Address': `${name}.cluster.${REGION}.rds.amazonaws.com`,
        DBClusterArn: arnOf('rds', `cluster:${name}`),
      },
      'AWS::RDS::DBProxy': {
        DBProxyArn: arnOf('rds', `db-proxy:prx-${name}`),
        Endpoint: `${name}.proxy.${REGION}.rds.amazonaws.com`,
      },
      'AWS::EC2::SecurityGroup': { GroupId: `sg-${name}` },
      'AWS::EC2::VPC': { DefaultSecurityGroup: `sg-${name}-default` },
      'AWS::Lambda::Version': { Version: '7' },
    };
    return byType[type]?.[attr] ?? `${name}.${attr}`;
  }

  /** The value a token takes once deployed; undefined for AWS::NoValue. */
  resolve(t: CfnTemplate, value: Json): Json {
    if (Array.isArray(value)) {
      return value.map((v) => this.resolve(t, v)).filter((v) => v !== undefined);
    }
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [fn] = keys as [string];
      const arg = value[fn];
      switch (fn) {
        case 'Ref':
          return this.ref(t, arg);
        case 'Fn::GetAtt': {
          const [id, attr] = Array.isArray(arg) ? arg : String(arg).split(/\.(.+)/);
          return this.getAtt(t, id, attr);
        }
        case 'Fn::Join': {
          const [sep, parts] = arg;
          return (this.resolve(t, parts) as Json[]).join(sep);
        }
        case 'Fn::Split': {
          const [sep, source] = arg;
          return String(this.resolve(t, source)).split(sep);
        }
        case 'Fn::Select': {
          const [index, list] = arg;
          return (this.resolve(t, list) as Json[])[Number(this.resolve(t, index))];
        }
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
          return String(text).replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
            if (name in vars) return String(this.resolve(t, vars[name]));
            const [id, attr] = name.split(/\.(.+)/);
            return String(attr ? this.getAtt(t, id as string, attr) : this.ref(t, id as string));
          });
        }
        case 'Fn::GetAZs':
          return [`${REGION}a`, `${REGION}b`, `${REGION}c`];
        case 'Fn::ImportValue':
          return this.importValue(String(this.resolve(t, arg)));
        case 'Fn::If': {
          const [condition, yes, no] = arg;
          return this.resolve(t, this.condition(t, condition) ? yes : no);
        }
        case 'Fn::Base64':
          return this.resolve(t, arg);
      }
    }
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, this.resolve(t, v)])
        .filter(([, v]) => v !== undefined),
    );
  }

  private condition(t: CfnTemplate, name: string): boolean {
    const evaluate = (c: Json): boolean => {
      const [fn] = Object.keys(c);
      const arg = c[fn as string];
      switch (fn) {
        case 'Fn::Equals':
          return JSON.stringify(this.resolve(t, arg[0])) === JSON.stringify(this.resolve(t, arg[1]));
        case 'Fn::Not':
          return !evaluate(arg[0]);
        case 'Fn::And':
          return arg.every(evaluate);
        case 'Fn::Or':
          return arg.some(evaluate);
        case 'Condition':
          return this.condition(t, arg);
        default:
          throw new Error(`${t.stackName}: condition ${fn}`);
      }
    };
    return evaluate(t.body.Conditions[name]);
  }

  /** An export of any template of the set, or a placeholder for one from outside it. */
  importValue(name: string): string {
    for (const t of this.templates) {
      for (const output of Object.values<Json>(t.body.Outputs ?? {})) {
        if (output.Export && this.resolve(t, output.Export.Name) === name)
          return this.resolve(t, output.Value);
      }
    }
    return `import:${name}`;
  }

  /** Every resource of a type across the set, with the template it is in. */
  *all(type?: string): Generator<{ t: CfnTemplate; id: string; resource: Json }> {
    for (const t of this.templates) {
      for (const [id, resource] of Object.entries<Json>(this.resourcesOf(t))) {
        if (!type || resource.Type === type) yield { t, id, resource };
      }
    }
  }

  deployedResource(t: CfnTemplate, id: string): DeployedResource {
    const resource = this.resourcesOf(t)[id];
    return {
      ref: this.ref(t, id) as string,
      attr: (name) => this.getAtt(t, id, name),
      properties: this.resolve(t, resource.Properties ?? {}),
    };
  }

  callSite(t: CfnTemplate, env: Record<string, string>, properties: Record<string, unknown>): CallSite {
    return {
      env,
      properties,
      partition: PARTITION,
      region: REGION,
      account: ACCOUNT,
      resources: (type) =>
        [...this.all(type)].filter((r) => r.t === t).map((r) => this.deployedResource(r.t, r.id)),
      keyOfSecret: (secretArn) => {
        for (const { t: at, id, resource } of this.all('AWS::RDS::DBCluster')) {
          if (this.getAtt(at, id, 'MasterUserSecret.SecretArn') !== secretArn) continue;
          const key = resource.Properties.MasterUserSecret?.KmsKeyId;
          return key === undefined ? undefined : this.resolve(at, key);
        }
        for (const { t: at, id, resource } of this.all('AWS::SecretsManager::Secret')) {
          if (this.ref(at, id) !== secretArn) continue;
          const key = resource.Properties?.KmsKeyId;
          return key === undefined ? undefined : this.resolve(at, key);
        }
        throw new Error(`no secret ${secretArn} in the templates`);
      },
      databaseResourceId: (host) => {
        for (const { t: at, id } of this.all('AWS::RDS::DBCluster')) {
          if (this.getAtt(at, id, 'Endpoint.Address') === host)
            return this.getAtt(at, id, 'DBClusterResourceId');
        }
        for (const { t: at, id } of this.all('AWS::RDS::DBProxy')) {
          if (this.getAtt(at, id, 'Endpoint') === host) return `prx-${this.nameOf(at, id)}`;
        }
        throw new Error(`no cluster or proxy answers at ${host}`);
      },
      functionsOf: (entry) =>
        [...this.all('AWS::Lambda::Function')]
          .filter((r) => r.t === t && r.resource.Metadata?.[ENTRY_METADATA] === entry)
          .map((r) => this.getAtt(r.t, r.id, 'Arn')),
    };
  }

  /** A resource policy the request meets: a KMS key's key policy. */
  resourcePolicyOf(arn: string): Json | undefined {
    for (const { t, id, resource } of this.all('AWS::KMS::Key')) {
      if (this.getAtt(t, id, 'Arn') === arn) return this.resolve(t, resource.Properties.KeyPolicy);
    }
    return undefined;
  }
}

/**
 * AWS-managed policies the function roles use, as AWS publishes them: the only managed policies a
 * role that runs our code may carry (test/infra/iam-simulation.test.ts). Service roles' own
 * managed policies (AWS Backup, API Gateway's logging, flow logs) are AWS's and are not evaluated.
 */
export const AWS_MANAGED_POLICIES: Record<string, Json> = {
  'service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
  'service-role/AWSLambdaVPCAccessExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'logs:CreateLogGroup',
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeSubnets',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        Resource: '*',
      },
    ],
  },
  'service-role/AWSCodeDeployRoleForLambdaLimited': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'cloudwatch:DescribeAlarms',
          'lambda:UpdateAlias',
          'lambda:GetAlias',
          'lambda:GetProvisionedConcurrencyConfig',
          'sns:Publish',
        ],
        Resource: '*',
      },
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:GetObjectVersion'],
        Resource: 'arn:aws:s3:::*/CodeDeploy/*',
      },
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:GetObjectVersion'],
        Resource: '*',
        Condition: { StringEquals: { 's3:ExistingObjectTag/UseWithCodeDeploy': 'true' } },
      },
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: 'arn:aws:lambda:*:*:function:CodeDeployHook_*',
      },
    ],
  },
};
/** Managed policies of service roles, AWS's to keep: named, not evaluated. */
export const SERVICE_MANAGED_POLICIES = [
  'service-role/AWSBackupServiceRolePolicyForBackup',
  'service-role/AmazonAPIGatewayPushToCloudWatchLogs',
];

export interface NamedPolicy {
  name: string;
  policy: Json;
}

export interface DeployedRole {
  t: CfnTemplate;
  id: string;
  arn: string;
  services: string[];
  identityPolicies: NamedPolicy[];
  /** AWS-managed policies of service roles, not evaluated. */
  unevaluated: string[];
  boundary?: NamedPolicy;
  boundaryArn?: string;
}

/** The account policies (infra/account-policies.ts) as deployed in the account. */
export function accountPolicies(deployed: Deployed): { boundary: NamedPolicy; execution: NamedPolicy } {
  const scratch = new Stack();
  const none = { stackName: 'account', file: '', body: {}, parameters: {} };
  return {
    boundary: {
      name: BOUNDARY_POLICY_NAME,
      policy: deployed.resolve(none, scratch.resolve(boundaryPolicyDocument().toJSON())),
    },
    execution: {
      name: EXECUTION_POLICY_NAME,
      policy: deployed.resolve(none, scratch.resolve(executionPolicyDocument().toJSON())),
    },
  };
}

export const accountPolicyArn = (name: string) => `arn:${PARTITION}:iam::${ACCOUNT}:policy/${name}`;

/** Every role of the set with what IAM evaluates for it. */
export function rolesOf(deployed: Deployed): DeployedRole[] {
  const { boundary } = accountPolicies(deployed);
  const roles: DeployedRole[] = [];
  for (const { t, id, resource } of deployed.all('AWS::IAM::Role')) {
    const p = deployed.resolve(t, resource.Properties);
    const ref = deployed.ref(t, id);
    const arn = deployed.getAtt(t, id, 'Arn');
    const services = (p.AssumeRolePolicyDocument?.Statement ?? []).flatMap((s: Json) =>
      [s.Principal?.Service ?? []].flat(),
    );
    const identityPolicies: NamedPolicy[] = (p.Policies ?? []).map((policy: Json) => ({
      name: `${id}/${policy.PolicyName}`,
      policy: policy.PolicyDocument,
    }));
    for (const { t: at, id: pid, resource: policy } of deployed.all('AWS::IAM::Policy')) {
      if (at !== t) continue;
      const pp = deployed.resolve(at, policy.Properties);
      if ((pp.Roles ?? []).includes(ref)) identityPolicies.push({ name: pid, policy: pp.PolicyDocument });
    }
    const unevaluated: string[] = [];
    const managedArns: string[] = [...(p.ManagedPolicyArns ?? [])];
    for (const { t: at, id: mid, resource: managed } of deployed.all('AWS::IAM::ManagedPolicy')) {
      if (at !== t) continue;
      const mp = deployed.resolve(at, managed.Properties);
      if ((mp.Roles ?? []).includes(ref)) managedArns.push(deployed.ref(at, mid) as string);
    }
    for (const managedArn of managedArns) {
      const awsManaged = managedArn.match(/^arn:aws:iam::aws:policy\/(.+)$/)?.[1];
      if (awsManaged && AWS_MANAGED_POLICIES[awsManaged]) {
        identityPolicies.push({ name: awsManaged, policy: AWS_MANAGED_POLICIES[awsManaged] });
        continue;
      }
      if (awsManaged) {
        unevaluated.push(awsManaged);
        continue;
      }
      const local = [...deployed.all('AWS::IAM::ManagedPolicy')].find(
        (m) => m.t === t && deployed.ref(m.t, m.id) === managedArn,
      );
      if (!local)
        throw new Error(`${t.stackName}/${id}: managed policy ${managedArn} is not in the templates`);
      identityPolicies.push({
        name: local.id,
        policy: deployed.resolve(t, local.resource.Properties.PolicyDocument),
      });
    }
    const boundaryArn: string | undefined = p.PermissionsBoundary;
    roles.push({
      t,
      id,
      arn,
      services,
      identityPolicies,
      unevaluated,
      boundaryArn,
      boundary: boundaryArn === accountPolicyArn(BOUNDARY_POLICY_NAME) ? boundary : undefined,
    });
  }
  return roles;
}
