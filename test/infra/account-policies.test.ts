import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BOUNDARY_POLICY_NAME,
  EXECUTION_POLICY_NAME,
  namespaceOf,
  SERVICES_BY_NAMESPACE,
} from '#infra/account-policies.ts';
import { type CiIdentityStack, defineCiApp } from '#infra/ci-stack.ts';
import { resourcesOf, synthesise, synthesiseBase, templatesOf, testApp } from './synth.ts';

// Prod, a branch preview on the preview base, the base itself, and staging (prod's database path on
// a cluster of its own).
const stacks = [
  ['prod', {}],
  ['feature-x', {}],
  ['staging', { proxy: true }],
] as const;
type Named = [string, Template];

describe('the shipped account policies', () => {
  let ci: CiIdentityStack;
  let templates: Named[];
  beforeAll(() => {
    ci = defineCiApp(testApp(), { repository: 'example-org/voice-agent-admin-api', account: 'prod' });
    templates = [
      // Each stage's template and its nested route stacks' (`<stage> <path>`).
      ...stacks.flatMap(([stage, options]): Named[] => {
        const { stack } = synthesise(stage, options);
        return [...templatesOf(stack)].map(
          ([path, t]): Named => [path === stack.node.path ? stage : `${stage} ${path}`, t],
        );
      }),
      ['previews', synthesiseBase().template],
    ];
  });
  const policyNamed = (name: string) => {
    const found = Object.values(resourcesOf(Template.fromStack(ci))).find(
      (r) => r.Type === 'AWS::IAM::ManagedPolicy' && r.Properties.ManagedPolicyName === name,
    );
    expect(found, name).toBeDefined();
    return found?.Properties.PolicyDocument.Statement as {
      Sid: string;
      Effect: string;
      Action: string | string[];
      Resource: unknown;
      Condition?: Record<string, Record<string, unknown>>;
    }[];
  };

  it('lets CloudFormation use every service behind every resource type the stacks create', () => {
    const allowed = new Set(
      policyNamed(EXECUTION_POLICY_NAME)
        .filter((s) => s.Effect === 'Allow')
        .flatMap((s) => [s.Action].flat()),
    );
    for (const [stage, template] of templates) {
      const types = new Set(Object.values(resourcesOf(template)).map((r) => r.Type));
      expect(types.size, stage).toBeGreaterThan(stage === 'previews' || stage.includes(' ') ? 5 : 20);
      for (const type of types) {
        const services = SERVICES_BY_NAMESPACE[namespaceOf(type)];
        expect(services, `${stage}: ${type} has no entry in SERVICES_BY_NAMESPACE`).toBeDefined();
        for (const service of services ?? []) expect(allowed, `${stage}: ${type}`).toContain(`${service}:*`);
      }
    }
    // The kinds only the preview base or a branch preview has are among those checked.
    const checked = new Set(templates.flatMap(([, t]) => Object.values(resourcesOf(t)).map((r) => r.Type)));
    for (const type of [
      'Custom::PreviewDatabase',
      'AWS::RDS::DBClusterParameterGroup',
      'AWS::EC2::FlowLog',
    ]) {
      expect(checked, type).toContain(type);
    }
  });

  it('allows no service the stacks do not use, and no IAM users or keys', () => {
    const statements = policyNamed(EXECUTION_POLICY_NAME);
    const allowed = statements.filter((s) => s.Effect === 'Allow').flatMap((s) => [s.Action].flat());
    const used = new Set(Object.values(SERVICES_BY_NAMESPACE).flat());
    for (const action of allowed) expect(used).toContain(action.split(':')[0]);
    expect(allowed).not.toContain('*');
    const noUsers = statements.find((s) => s.Sid === 'NoUsers');
    expect(noUsers?.Effect).toBe('Deny');
    // Every user, group, key and identity provider action (simulated in test/infra/iam-simulation.test.ts).
    expect(noUsers?.Action).toEqual(expect.arrayContaining(['iam:*User*', 'iam:*AccessKey*', 'iam:*Group*']));
  });

  it('puts every role the stacks create inside the boundary, which grants no IAM', () => {
    for (const [stage, template] of templates) {
      const roles = Object.entries(resourcesOf(template)).filter(([, r]) => r.Type === 'AWS::IAM::Role');
      // The base: flow logs, the default-SG provider and API Gateway's account role; a branch preview 4.
      expect(roles.length, stage).toBeGreaterThan(stage === 'previews' ? 1 : 3);
      for (const [id, role] of roles) {
        expect(JSON.stringify(role.Properties.PermissionsBoundary), `${stage}: ${id}`).toContain(
          `:policy/${BOUNDARY_POLICY_NAME}`,
        );
      }
    }
    const boundary = policyNamed(BOUNDARY_POLICY_NAME).flatMap((s) => [s.Action].flat());
    expect(boundary.filter((a) => a.startsWith('iam:') || a === '*')).toEqual([]);
  });

  it('refuses to create a role, or set its boundary, unless the boundary is the one every role of the stacks carries', () => {
    const statements = policyNamed(EXECUTION_POLICY_NAME);
    const inside = statements.find((st) => st.Sid === 'RolesInsideTheBoundary');
    expect(inside).toMatchObject({
      Effect: 'Deny',
      Action: ['iam:CreateRole', 'iam:PutRolePermissionsBoundary'],
      Resource: '*',
    });
    // The ARN the condition demands, as IAM would compare it in an account of the partition.
    const demanded = arnIn(inside?.Condition?.StringNotEquals?.['iam:PermissionsBoundary']);
    expect(demanded).toBe(`arn:aws:iam::123456789012:policy/${BOUNDARY_POLICY_NAME}`);
    const deniedFor = (boundary: unknown) => boundary === undefined || arnIn(boundary) !== demanded;
    for (const [stage, template] of templates) {
      for (const [id, role] of Object.entries(resourcesOf(template))) {
        if (role.Type !== 'AWS::IAM::Role') continue;
        expect(deniedFor(role.Properties.PermissionsBoundary), `${stage}: ${id}`).toBe(false);
      }
    }
    expect(deniedFor(undefined)).toBe(true);
    expect(deniedFor('arn:aws:iam::aws:policy/AdministratorAccess')).toBe(true);
    // Nor may the boundary, or the execution policy itself, be changed, deleted or taken off a role.
    const keep = statements.find((st) => st.Sid === 'KeepBoundaries');
    expect(keep?.Effect).toBe('Deny');
    expect(keep?.Action).toEqual(
      expect.arrayContaining([
        'iam:DeleteRolePermissionsBoundary',
        'iam:CreatePolicyVersion',
        'iam:SetDefaultPolicyVersion',
        'iam:DeletePolicy',
        'iam:DeletePolicyVersion',
      ]),
    );
    expect([keep?.Resource].flat().map(arnIn)).toEqual(
      expect.arrayContaining([demanded, `arn:aws:iam::123456789012:policy/${EXECUTION_POLICY_NAME}`]),
    );
  });

  it('leaves no role to be made outside the templates: no transform, nested stack or serverless application', () => {
    for (const [stage, template] of templates) {
      const json = template.toJSON();
      expect(json.Transform, stage).toBeUndefined();
      const outside = Object.values(resourcesOf(template)).filter((r) =>
        /^AWS::(Serverless::|SecretsManager::RotationSchedule)/.test(r.Type),
      );
      expect(outside, stage).toEqual([]);
      // Nested stacks only of our own templates (the route stacks, checked here as templates too).
      const nested = Object.values(resourcesOf(template)).filter(
        (r) => r.Type === 'AWS::CloudFormation::Stack',
      );
      expect(nested.length, stage).toBe(templates.filter(([name]) => name.startsWith(`${stage} `)).length);
    }
    // Service-linked roles (RDS, AWS Backup, API Gateway) are AWS's, made with CreateServiceLinkedRole.
  });
});

/** A policy ARN as written in a template (`Fn::Join` of partition and account), in account 123456789012 of `aws`. */
function arnIn(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })?.['Fn::Join'];
  if (!join) throw new Error(`not an ARN: ${JSON.stringify(value)}`);
  const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::AccountId': '123456789012' };
  return join[1]
    .map((part) => (typeof part === 'string' ? part : (pseudo[(part as { Ref: string }).Ref] ?? '?')))
    .join(join[0]);
}
