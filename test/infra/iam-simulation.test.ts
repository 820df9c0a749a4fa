/**
 * IAM, proven offline: every call of infra/aws-calls.ts simulated by a real policy evaluator
 * (@cloud-copilot/iam-simulate: identity policies, permissions boundary, resource policies as AWS
 * documents them) against its caller's role in the synthesized prod, preview base and branch
 * preview templates, and held to a network route; every escalation a template could attempt
 * through the execution policy or a deploy role, denied.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOUNDARY_POLICY_NAME, EXECUTION_POLICY_NAME } from '#infra/account-policies.ts';
import { AWS_CALLS, BOUNDARY_CALLS, type Caller, callsOf } from '#infra/aws-calls.ts';
import { defineCiApp } from '#infra/ci-stack.ts';
import { ENTRY_METADATA } from '#infra/constructs/lambda.ts';
import {
  ACCOUNT,
  accountPolicies,
  accountPolicyArn,
  type CfnTemplate,
  Deployed,
  type DeployedRole,
  type NamedPolicy,
  PARTITION,
  REGION,
  rolesOf,
  templatesOfAssembly,
} from './iam-templates.ts';
import { synthesise, synthesiseBase, testApp } from './synth.ts';

// biome-ignore lint/suspicious/noExplicitAny: templates are free-form JSON
type Json = any;

type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied' | 'Error';

interface Request {
  principal: string;
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  identityPolicies: NamedPolicy[];
  boundary?: NamedPolicy;
  resourcePolicy?: Json;
}

async function decide(request: Request): Promise<Decision | string> {
  const result = await runSimulation(
    {
      request: {
        principal: request.principal,
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        contextVariables: request.context ?? {},
      },
      identityPolicies: request.identityPolicies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      permissionBoundaryPolicies: request.boundary ? [request.boundary] : undefined,
      resourcePolicy: request.resourcePolicy,
    },
    {},
  );
  if (result.resultType === 'error')
    return `Error: ${result.errors.message} ${JSON.stringify(result.errors)}`;
  return result.overallResult as Decision;
}

/** One stage's functions and roles, with the templates its imports resolve through. */
interface Stage {
  name: string;
  own: CfnTemplate[];
  deployed: Deployed;
  roles: DeployedRole[];
}

const stages: Stage[] = [];

function stageOf(name: string, own: CfnTemplate[], imported: CfnTemplate[] = []): Stage {
  const deployed = new Deployed([...own, ...imported]);
  return { name, own, deployed, roles: rolesOf(deployed).filter((r) => own.includes(r.t)) };
}

/** Each function of a stage with its caller row and role. */
function functionsOf(stage: Stage) {
  const { deployed } = stage;
  const customResources = [...deployed.all()].filter(({ resource }) => resource.Type.startsWith('Custom::'));
  return [...deployed.all('AWS::Lambda::Function')]
    .filter(({ t }) => stage.own.includes(t))
    .map(({ t, id, resource }) => {
      const arn = deployed.getAtt(t, id, 'Arn');
      const entry: string | undefined = resource.Metadata?.[ENTRY_METADATA];
      const served = customResources.find(
        (c) => c.t === t && deployed.resolve(t, c.resource.Properties.ServiceToken) === arn,
      );
      const caller: Caller | undefined = entry
        ? { entry }
        : served
          ? { customResource: served.resource.Type }
          : undefined;
      const roleArn = deployed.resolve(t, resource.Properties.Role);
      const role = stage.roles.find((r) => r.arn === roleArn);
      const env = deployed.resolve(t, resource.Properties.Environment?.Variables ?? {});
      const properties = served ? deployed.resolve(t, served.resource.Properties) : {};
      return { t, id, resource, caller, role, site: deployed.callSite(t, env, properties) };
    });
}

beforeAll(() => {
  const assembly = (app: App) => app.synth().directory;
  const base = templatesOfAssembly(assembly(synthesiseBase().app));
  stages.push(
    stageOf('prod', templatesOfAssembly(assembly(synthesise('prod').app))),
    // Webhook delivery's queue, key and functions exist only where the stage enables them.
    stageOf('prod-webhooks', templatesOfAssembly(assembly(synthesise('prod', { webhooks: true }).app))),
    stageOf('previews', base),
    stageOf('ci-preview', templatesOfAssembly(assembly(synthesise('ci-preview').app)), base),
  );
}, 240_000);

describe.each(['prod', 'prod-webhooks', 'previews', 'ci-preview'])('the %s templates, simulated', (name) => {
  const stage = () => stages.find((s) => s.name === name) as Stage;

  it('know every function: each is ours (a module of the table) or the provider of a custom resource of the table', () => {
    const unknown = functionsOf(stage())
      .filter(({ caller, role }) => !caller || !callsOf(caller) || !role)
      .map(({ t, id }) => `${t.stackName}/${id}`);
    expect(unknown).toEqual([]);
  });

  it('allow every declared call of every function and service role, within the boundary', async () => {
    const failures: string[] = [];
    let simulated = 0;
    const check = async (who: string, role: DeployedRole, calls: ReturnType<typeof callsOf>, site: Json) => {
      for (const call of calls ?? []) {
        for (const resource of call.resources(site)) {
          simulated++;
          const decision = await decide({
            principal: role.arn,
            action: call.action,
            resource,
            context: call.context?.(site),
            identityPolicies: role.identityPolicies,
            boundary: role.boundary,
            resourcePolicy: stage().deployed.resourcePolicyOf(resource),
          });
          if (decision !== 'Allowed') failures.push(`${who}: ${call.action} on ${resource}: ${decision}`);
        }
      }
    };
    for (const fn of functionsOf(stage())) {
      if (!fn.caller || !fn.role) continue;
      await check(`${fn.t.stackName}/${fn.id}`, fn.role, callsOf(fn.caller), fn.site);
    }
    for (const role of stage().roles) {
      for (const service of role.services) {
        const calls = callsOf({ servicePrincipal: service });
        if (calls)
          await check(`${role.id} (${service})`, role, calls, stage().deployed.callSite(role.t, {}, {}));
      }
    }
    expect(failures).toEqual([]);
    expect(simulated).toBeGreaterThan(name === 'previews' ? 3 : 20);
  });

  it('hold every call of a function in the VPC to a route: an interface endpoint it may reach on 443', () => {
    const { deployed } = stage();
    const missing: string[] = [];
    const ingress = [...deployed.all('AWS::EC2::SecurityGroupIngress')].map(({ t, resource }) =>
      deployed.resolve(t, resource.Properties),
    );
    const egress = [...deployed.all('AWS::EC2::SecurityGroupEgress')].map(({ t, resource }) =>
      deployed.resolve(t, resource.Properties),
    );
    const endpoints = [...deployed.all('AWS::EC2::VPCEndpoint')].map(({ t, resource }) =>
      deployed.resolve(t, resource.Properties),
    );
    for (const fn of functionsOf(stage())) {
      const vpc = fn.resource.Properties.VpcConfig;
      if (!vpc || !fn.caller) continue;
      const groups: string[] = deployed.resolve(fn.t, vpc.SecurityGroupIds);
      for (const call of callsOf(fn.caller) ?? []) {
        if (call.route === 'database' || call.resources(fn.site).length === 0) continue;
        const service = `com.amazonaws.${REGION}.${call.route.endpoint}`;
        const reachable = endpoints.some(
          (endpoint) =>
            endpoint.ServiceName === service &&
            endpoint.VpcEndpointType === 'Interface' &&
            endpoint.PrivateDnsEnabled === true &&
            (endpoint.SecurityGroupIds as string[]).some(
              (target) =>
                groups.some((source) =>
                  ingress.some(
                    (r) => r.GroupId === target && r.SourceSecurityGroupId === source && r.FromPort === 443,
                  ),
                ) &&
                groups.some((source) =>
                  egress.some(
                    (r) =>
                      r.GroupId === source && r.DestinationSecurityGroupId === target && r.FromPort === 443,
                  ),
                ),
            ),
        );
        if (!reachable) missing.push(`${fn.t.stackName}/${fn.id}: ${call.action} needs ${service}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('give no role any IAM action, or every action; and every role the boundary', () => {
    const findings: string[] = [];
    for (const role of stage().roles) {
      if (!role.boundary) findings.push(`${role.id}: boundary ${role.boundaryArn}`);
      for (const { name: policy, policy: document } of role.identityPolicies) {
        for (const statement of [document.Statement].flat()) {
          if (statement.Effect !== 'Allow') continue;
          for (const action of [statement.Action ?? []].flat() as string[]) {
            if (action === '*' || /^iam:/i.test(action) || /^i?a?m?\*/i.test(action)) {
              findings.push(`${role.id} (${policy}): ${action}`);
            }
          }
          if (statement.NotAction) findings.push(`${role.id} (${policy}): NotAction`);
        }
      }
      // Only service roles may carry AWS-managed policies this test does not evaluate.
      if (role.unevaluated.length && role.services.includes('lambda.amazonaws.com')) {
        findings.push(`${role.id}: unevaluated managed ${role.unevaluated.join(', ')}`);
      }
    }
    expect(findings).toEqual([]);
  });

  it('deny through the boundary what a function role asks beyond it', async () => {
    const fn = functionsOf(stage()).find((f) => f.role?.boundary);
    const role = fn?.role as DeployedRole;
    const everything: NamedPolicy = {
      name: 'Everything',
      policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
    };
    for (const [action, resource] of [
      ['iam:AttachRolePolicy', `arn:${PARTITION}:iam::${ACCOUNT}:role/anything`],
      ['sts:AssumeRole', `arn:${PARTITION}:iam::${ACCOUNT}:role/anything`],
      ['s3:GetObject', `arn:${PARTITION}:s3:::any-bucket/key`],
    ] as const) {
      const decision = await decide({
        principal: role.arn,
        action,
        resource,
        identityPolicies: [...role.identityPolicies, everything],
        boundary: role.boundary,
      });
      expect(decision, action).toBe('ImplicitlyDenied');
    }
  });
});

describe('the permissions boundary', () => {
  it('opens beyond the runtime services exactly the actions the table calls', () => {
    const called = new Set(AWS_CALLS.flatMap((row) => row.calls.map((call) => call.action)));
    for (const { sid, actions } of BOUNDARY_CALLS) {
      for (const action of actions) expect(called.has(action), `${sid}: ${action}`).toBe(true);
    }
  });
});

describe('escalation through the deploy identity', () => {
  const role = (name: string) => `arn:${PARTITION}:iam::${ACCOUNT}:role/${name}`;
  const executionRole = role(`cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-${REGION}`);
  const stackRole = role('VoiceAgentAdmin-prod-FunctionsAdminServiceRoleE33C5AA-AbCdEf');
  const boundaryArn = accountPolicyArn(BOUNDARY_POLICY_NAME);
  const admin = `arn:${PARTITION}:iam::aws:policy/AdministratorAccess`;
  const withBoundary = { 'iam:PermissionsBoundary': boundaryArn };

  /** What a template, or a deploy job, may try: none of it may be allowed. */
  const attempts: [string, string, string, Record<string, string>?][] = [
    [
      'attach a policy to a role without the boundary',
      'iam:AttachRolePolicy',
      executionRole,
      { 'iam:PolicyARN': admin },
    ],
    ['put a policy on a role without the boundary', 'iam:PutRolePolicy', executionRole],
    [
      'put a policy on a deploy role',
      'iam:PutRolePolicy',
      role('VoiceAgentAdminDeployIdentity-ProdDeployRole-AbCdEf'),
    ],
    ['delete a policy of a role without the boundary', 'iam:DeleteRolePolicy', executionRole],
    [
      'detach a policy of a role without the boundary',
      'iam:DetachRolePolicy',
      executionRole,
      { 'iam:PolicyARN': admin },
    ],
    ["update the execution role's trust", 'iam:UpdateAssumeRolePolicy', executionRole],
    [
      "update a deploy role's trust",
      'iam:UpdateAssumeRolePolicy',
      role('VoiceAgentAdminDeployIdentity-PreviewDeployRole-AbCdEf'),
    ],
    [
      'pass a role that is not the stack’s own',
      'iam:PassRole',
      role('OrganizationAccountAccessRole'),
      { 'iam:PassedToService': 'lambda.amazonaws.com' },
    ],
    ['create a role without the boundary', 'iam:CreateRole', role('VoiceAgentAdmin-prod-Escape')],
    [
      'create a role with another boundary',
      'iam:CreateRole',
      role('VoiceAgentAdmin-prod-Escape'),
      { 'iam:PermissionsBoundary': admin },
    ],
    ['create a user', 'iam:CreateUser', `arn:${PARTITION}:iam::${ACCOUNT}:user/intruder`],
    ['create an access key', 'iam:CreateAccessKey', `arn:${PARTITION}:iam::${ACCOUNT}:user/intruder`],
    [
      'attach a policy to a user',
      'iam:AttachUserPolicy',
      `arn:${PARTITION}:iam::${ACCOUNT}:user/someone`,
      { 'iam:PolicyARN': admin },
    ],
    ["remove a role's boundary", 'iam:DeleteRolePermissionsBoundary', stackRole, withBoundary],
    [
      "change a role's boundary",
      'iam:PutRolePermissionsBoundary',
      stackRole,
      { 'iam:PermissionsBoundary': admin },
    ],
    ['rewrite the boundary', 'iam:CreatePolicyVersion', boundaryArn],
    ['switch the boundary to an older version', 'iam:SetDefaultPolicyVersion', boundaryArn],
    ['delete the boundary', 'iam:DeletePolicy', boundaryArn],
    ['rewrite the execution policy', 'iam:CreatePolicyVersion', accountPolicyArn(EXECUTION_POLICY_NAME)],
  ];

  let execution: NamedPolicy;
  const deployRoles: { name: string; policies: NamedPolicy[] }[] = [];
  beforeAll(() => {
    const deployed = new Deployed([]);
    execution = accountPolicies(deployed).execution;
    for (const account of ['preview', 'prod'] as const) {
      const stack = defineCiApp(testApp(), { repository: 'example-org/voice-agent-admin-api', account });
      const template = Template.fromStack(stack).toJSON();
      const t: CfnTemplate = { stackName: stack.stackName, file: '', body: template, parameters: {} };
      for (const [id, resource] of Object.entries<Json>(template.Resources)) {
        if (resource.Type !== 'AWS::IAM::Role') continue;
        const properties = new Deployed([t]).resolve(t, resource.Properties);
        deployRoles.push({
          name: id,
          policies: (properties.Policies ?? []).map((p: Json) => ({
            name: p.PolicyName,
            policy: p.PolicyDocument,
          })),
        });
      }
    }
  });

  it.each(attempts)('refuses the execution role: %s', async (_what, action, resource, context) => {
    expect(
      await decide({ principal: executionRole, action, resource, context, identityPolicies: [execution] }),
    ).toMatch(/Denied/);
  });

  it.each(attempts)('refuses every deploy role: %s', async (_what, action, resource, context) => {
    expect(deployRoles.map((r) => r.name).sort()).toEqual(
      ['PreviewDeployRole', 'ProdDeployRole', 'ProdPlanRole'].map((name) => expect.stringContaining(name)),
    );
    for (const deployRole of deployRoles) {
      const principal = role(`VoiceAgentAdminDeployIdentity-${deployRole.name}`);
      const decision = await decide({
        principal,
        action,
        resource,
        context,
        identityPolicies: deployRole.policies,
      });
      expect(decision, deployRole.name).toMatch(/Denied/);
    }
  });

  it('still lets the execution role make and change the stacks’ roles inside the boundary', async () => {
    const allowed = async (action: string, resource: string, context?: Record<string, string>) =>
      decide({ principal: executionRole, action, resource, context, identityPolicies: [execution] });
    expect(await allowed('iam:CreateRole', stackRole, withBoundary)).toBe('Allowed');
    expect(await allowed('iam:PutRolePolicy', stackRole, withBoundary)).toBe('Allowed');
    expect(
      await allowed('iam:AttachRolePolicy', stackRole, { ...withBoundary, 'iam:PolicyARN': admin }),
    ).toBe('Allowed');
    expect(await allowed('iam:UpdateAssumeRolePolicy', stackRole)).toBe('Allowed');
    expect(await allowed('iam:PassRole', stackRole, { 'iam:PassedToService': 'lambda.amazonaws.com' })).toBe(
      'Allowed',
    );
    expect(await allowed('iam:DeleteRole', stackRole, withBoundary)).toBe('Allowed');
  });

  it("lets the preview deploy role alone tear a preview's API keys down (cli/aws-stage.ts deletePreviewKeys)", async () => {
    const apigateway = (path: string) => `arn:${PARTITION}:apigateway:${REGION}::${path}`;
    const teardown: [string, string][] = [
      ['apigateway:GET', apigateway('/usageplans/abc123/keys')], // GetUsagePlanKeys
      ['apigateway:GET', apigateway('/apikeys')], // GetApiKeys by name, the unplaced keys too
      ['apigateway:DELETE', apigateway('/apikeys/k3y1d')], // DeleteApiKey
    ];
    for (const deployRole of deployRoles) {
      const principal = role(`VoiceAgentAdminDeployIdentity-${deployRole.name}`);
      for (const [action, resource] of teardown) {
        const decision = await decide({ principal, action, resource, identityPolicies: deployRole.policies });
        const expected = deployRole.name.startsWith('PreviewDeployRole') ? 'Allowed' : 'ImplicitlyDenied';
        expect(decision, `${deployRole.name} ${action} ${resource}`).toBe(expected);
      }
    }
  });
});
