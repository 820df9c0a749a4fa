import { beforeAll, describe, expect, it } from 'vitest';
import { previewDatabaseName, previewRoleName } from '#infra/constructs/preview-database.ts';
import { BASE_EXPORTS, exportName, PREVIEW_CLUSTER } from '#infra/preview-base.ts';
import {
  idsOfType,
  logicalId,
  type Resources,
  resourcesOf,
  type Synthesised,
  synthesise,
  synthesiseBase,
} from './synth.ts';

/** Every resource `id` waits for, through DependsOn and Ref/GetAtt chains. */
function prerequisites(resources: Resources, id: string, seen = new Set<string>()): Set<string> {
  const refs = JSON.stringify(resources[id]?.Properties ?? {}).matchAll(
    /"(?:Ref|Fn::GetAtt)":\[?"([A-Za-z0-9]+)/g,
  );
  for (const next of [...(resources[id]?.DependsOn ?? []), ...[...refs].map((m) => m[1] as string)]) {
    if (resources[next] && !seen.has(next)) {
      seen.add(next);
      prerequisites(resources, next, seen);
    }
  }
  return seen;
}

/** The export names a template imports (`Fn::ImportValue`), each once. */
const importsOf = (template: unknown) =>
  [
    ...new Set([...JSON.stringify(template).matchAll(/"Fn::ImportValue":"([^"]+)"/g)].map((m) => m[1])),
  ].sort();

describe('the preview base stack (VoiceAgentAdmin-previews)', () => {
  let base: ReturnType<typeof synthesiseBase>;
  let resources: Resources;
  beforeAll(() => {
    // Synthesis fails on an unacknowledged cdk-nag finding.
    base = synthesiseBase();
    resources = resourcesOf(base.template);
  });

  it('holds one VPC without NAT, one Secrets Manager endpoint, exactly one cluster with one writer', () => {
    expect(base.stack.stackName).toBe('VoiceAgentAdmin-previews');
    for (const [type, count] of Object.entries({
      'AWS::EC2::VPC': 1,
      'AWS::EC2::NatGateway': 0,
      'AWS::EC2::InternetGateway': 0,
      // Secrets Manager's, and Lambda's (branch admin functions invoke their key function)
      'AWS::EC2::VPCEndpoint': 2,
      'AWS::RDS::DBCluster': 1,
      'AWS::RDS::DBInstance': 1,
      'AWS::RDS::DBProxy': 0,
      // The master secret is RDS's (created and rotated with the cluster): none in the template.
      'AWS::SecretsManager::Secret': 0,
      'AWS::SecretsManager::RotationSchedule': 0,
    })) {
      base.template.resourceCountIs(type, count);
    }
    expect(base.stack.terminationProtection).toBe(true);
  });

  it("exports RDS's master secret for the branches' migration and database functions", () => {
    const [cluster] = idsOfType(base.template, 'AWS::RDS::DBCluster');
    expect(resources[cluster as string]?.Properties).toMatchObject({
      ManageMasterUserPassword: true,
      MasterUsername: 'postgres',
    });
    const outputs = base.template.toJSON().Outputs;
    expect(outputs.MasterSecretArn.Value).toEqual({ 'Fn::GetAtt': [cluster, 'MasterUserSecret.SecretArn'] });
  });

  it('scales the cluster to zero, and closes idle sessions so that frozen functions cannot keep it awake', () => {
    const [cluster] = idsOfType(base.template, 'AWS::RDS::DBCluster').map((id) => resources[id]?.Properties);
    expect(cluster.ServerlessV2ScalingConfiguration).toEqual({
      MinCapacity: 0,
      MaxCapacity: PREVIEW_CLUSTER.maxCapacity,
      SecondsUntilAutoPause: PREVIEW_CLUSTER.autoPause.toSeconds(),
    });
    expect(cluster.StorageEncrypted).toBe(true);
    base.template.hasResourceProperties('AWS::RDS::DBClusterParameterGroup', {
      Parameters: {
        'rds.force_ssl': '1',
        idle_session_timeout: '60000',
        idle_in_transaction_session_timeout: '60000',
      },
    });
    // Above the functions' own 20 s pool idle timeout (db/postgres-client.ts): they close first when thawed.
    expect(PREVIEW_CLUSTER.idleSessionTimeoutMs).toBeGreaterThan(20_000);
  });

  it('exports what branch stacks import, by name', () => {
    const outputs = base.template.toJSON().Outputs as Record<string, { Export?: { Name: string } }>;
    expect(
      Object.values(outputs)
        .map((o) => o.Export?.Name)
        .sort(),
    ).toEqual(BASE_EXPORTS.map(exportName).sort());
  });

  it('lets the one functions security group reach the cluster and the endpoints (Secrets Manager, Lambda), and nothing else', () => {
    const sg = logicalId(base.stack, base.stack.node.findChild('FunctionsSecurityGroup'));
    const egress = idsOfType(base.template, 'AWS::EC2::SecurityGroupEgress')
      .map((id) => resources[id]?.Properties)
      .filter((p) => JSON.stringify(p.GroupId).includes(sg));
    expect(egress.map((p) => p.FromPort).sort()).toEqual([443, 443, 5432]);
  });
});

describe('a branch preview stack', () => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise('feature-x');
    resources = resourcesOf(synth.template);
  });

  it('owns no VPC, cluster, instance, NAT gateway, endpoint or security group', () => {
    for (const type of [
      'AWS::EC2::VPC',
      'AWS::EC2::Subnet',
      'AWS::EC2::NatGateway',
      'AWS::EC2::VPCEndpoint',
      'AWS::EC2::SecurityGroup',
      'AWS::EC2::SecurityGroupIngress',
      'AWS::EC2::SecurityGroupEgress',
      'AWS::RDS::DBCluster',
      'AWS::RDS::DBInstance',
      'AWS::RDS::DBProxy',
      'AWS::SecretsManager::RotationSchedule',
    ]) {
      synth.template.resourceCountIs(type, 0);
    }
    synth.template.resourceCountIs('Custom::PreviewDatabase', 1);
    // The API signs IAM tokens; the master secret is the base's.
    synth.template.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it('reserves no concurrency for any function', () => {
    for (const id of idsOfType(synth.template, 'AWS::Lambda::Function')) {
      expect(resources[id]?.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
    }
  });

  it("imports only what the base exports, and runs every function of ours in the base's subnets and security group", () => {
    // A subset of the base's exports (the VPC id and AZs are for lookups, not in the template).
    const imports = importsOf(synth.template.toJSON());
    expect(BASE_EXPORTS.map(exportName)).toEqual(expect.arrayContaining(imports));
    expect(imports).toEqual(
      (
        [
          'ClusterEndpoint',
          'ClusterResourceId',
          'FunctionsSecurityGroupId',
          'IsolatedSubnetIds',
          'MasterSecretArn',
        ] as const
      ).map(exportName),
    );
    const ours = [...synth.stack.functions.all, synth.stack.migrations.function];
    for (const fn of ours) {
      const vpc = resources[logicalId(synth.stack, fn)]?.Properties.VpcConfig;
      expect(JSON.stringify(vpc.SecurityGroupIds)).toContain(exportName('FunctionsSecurityGroupId'));
      expect(JSON.stringify(vpc.SubnetIds)).toContain(exportName('IsolatedSubnetIds'));
    }
  });

  it('creates its database and role before the migrations run, named after the stage', () => {
    const [databaseId] = idsOfType(synth.template, 'Custom::PreviewDatabase');
    expect(resources[databaseId as string]?.Properties.DatabaseName).toBe(previewDatabaseName('feature-x'));
    expect(resources[databaseId as string]).toMatchObject({ DeletionPolicy: 'Delete' });
    const trigger = idsOfType(synth.template, 'Custom::Trigger')[0] as string;
    expect(prerequisites(resources, trigger)).toContain(databaseId);
    expect(resources[databaseId as string]?.Properties.RoleName).toBe(previewRoleName('feature-x'));
  });

  it('connects the API as the branch role, and only the migration and database functions as the master, to its own database', () => {
    const master = exportName('MasterSecretArn');
    const { functions, migrations } = synth.stack;
    for (const fn of functions.all) {
      const env = resources[logicalId(synth.stack, fn)]?.Properties.Environment.Variables;
      expect(env).toMatchObject({
        DATABASE_IAM_USER: 'app_feature_x',
        DATABASE_NAME: 'preview_feature_x',
        DATABASE_SSLMODE: 'verify-full',
      });
      expect(env.DATABASE_SECRET_ARN).toBeUndefined();
      expect(JSON.stringify(env.DATABASE_HOST)).toContain(exportName('ClusterEndpoint'));
      // rds-db:connect as this branch's role on the base's cluster, nothing wider.
      const statements =
        resources[logicalId(synth.stack, fn.role?.node.tryFindChild('DefaultPolicy') as never)]?.Properties
          .PolicyDocument.Statement;
      const connect = statements.filter((st: { Action: unknown }) => st.Action === 'rds-db:connect');
      expect(connect).toHaveLength(1);
      expect(JSON.stringify(connect[0].Resource)).toContain(exportName('ClusterResourceId'));
      expect(JSON.stringify(connect[0].Resource)).toContain('/app_feature_x');
    }
    const migrationEnv =
      resources[logicalId(synth.stack, migrations.function)]?.Properties.Environment.Variables;
    expect(JSON.stringify(migrationEnv.DATABASE_SECRET_ARN)).toContain(master);
    expect(migrationEnv.DATABASE_NAME).toBe('preview_feature_x');
    const readers = idsOfType(synth.template, 'AWS::IAM::Policy').filter((id) =>
      JSON.stringify(resources[id]?.Properties).includes(master),
    );
    // One role acts as the master: the migration and preview-database functions (and its provider) share it.
    expect(readers).toHaveLength(1);
    expect(readers).toContain(
      logicalId(synth.stack, migrations.function.role?.node.tryFindChild('DefaultPolicy') as never),
    );
  });
});
