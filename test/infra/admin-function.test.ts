import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { USAGE_PLAN_IDS_ENV } from '#functions/usage-plan-keys.ts';
import { USAGE_PLAN_KEYS_FUNCTION_ENV } from '#functions/usage-plan-keys-remote.ts';
import { ADMIN_TIMEOUT } from '#infra/constructs/functions.ts';
import type { UsagePlanKeysFunction } from '#infra/constructs/usage-plan-keys.ts';
import {
  allResourcesOf,
  idsOfType,
  logicalId,
  type Resources,
  type Synthesised,
  synthesise,
} from './synth.ts';

/** Every place under `node` that names `id` through Ref or Fn::GetAtt, as a path. */
function referencesTo(id: string, node: unknown, path = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => referencesTo(id, item, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  if (record.Ref === id) return [path];
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[0] === id) return [path];
  if (typeof getAtt === 'string' && getAtt.startsWith(`${id}.`)) return [path];
  return Object.entries(record).flatMap(([key, value]) => referencesTo(id, value, `${path}.${key}`));
}

describe.each([
  { stage: 'prod', demoSeed: 'refused' },
  { stage: 'feature-x', demoSeed: 'allowed' },
])('the admin function of the $stage stack', ({ stage, demoSeed }) => {
  let synth: Synthesised;
  let resources: Resources;
  let adminId: string;
  beforeAll(() => {
    synth = synthesise(stage);
    resources = allResourcesOf(synth.stack);
    adminId = logicalId(synth.stack, synth.stack.functions.admin);
  });

  it('is built like the route functions, from functions/admin.ts, with its stage settings', () => {
    const routeFn =
      resources[
        logicalId(
          synth.stack,
          [...synth.stack.functions.functionByRoute.values()][0] ?? synth.stack.functions.authorizerFunction,
        )
      ];
    const admin = resources[adminId];
    expect(admin?.Type).toBe('AWS::Lambda::Function');
    expect(admin?.Properties).toMatchObject({
      Runtime: routeFn?.Properties.Runtime,
      Architectures: routeFn?.Properties.Architectures,
      Handler: 'index.handler',
      Timeout: ADMIN_TIMEOUT.toSeconds(),
      VpcConfig: routeFn?.Properties.VpcConfig,
    });
    const env = admin?.Properties.Environment.Variables;
    const routeEnv = routeFn?.Properties.Environment.Variables;
    // and the key function outside the VPC that keeps the workspaces' API keys in the tiers' plans
    const keys = synth.stack.node.findChild('UsagePlanKeys') as UsagePlanKeysFunction;
    expect(env).toEqual({
      ...routeEnv,
      STAGE: stage,
      DEMO_SEED: demoSeed,
      [USAGE_PLAN_KEYS_FUNCTION_ENV]: expect.anything(),
    });
    const keysFn = resources[logicalId(synth.stack, keys.function)]?.Properties;
    // By reference, or (a preview's, sharing the admin function's role) by the name it is given.
    expect([{ Ref: logicalId(synth.stack, keys.function) }, keysFn.FunctionName]).toContainEqual(
      env[USAGE_PLAN_KEYS_FUNCTION_ENV],
    );
    expect(keysFn.VpcConfig).toBeUndefined();
    expect(keysFn.Environment.Variables[USAGE_PLAN_IDS_ENV]).toEqual({ 'Fn::Join': ['', expect.any(Array)] });
  });

  it('is reachable only through IAM: no route, no integration, no permission, no URL names it', () => {
    const referrers = Object.entries(resources)
      .filter(([id]) => id !== adminId)
      .flatMap(([id, resource]) => referencesTo(adminId, resource.Properties, id));
    expect(referrers).toEqual([]);
    for (const type of ['AWS::Lambda::Permission', 'AWS::Lambda::Url', 'AWS::ApiGateway::Method']) {
      for (const [, resource] of Object.entries(resources).filter(([, r]) => r.Type === type)) {
        expect(JSON.stringify(resource)).not.toContain(adminId);
      }
    }
  });

  it('grants lambda:InvokeFunction on it to no principal in the stack', () => {
    const invokeStatements = Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' ||
          r.Type === 'AWS::IAM::Role' ||
          r.Type === 'AWS::IAM::ManagedPolicy',
      )
      .flatMap((r) => [
        ...(r.Properties?.PolicyDocument?.Statement ?? []),
        ...(r.Properties?.Policies ?? []).flatMap(
          (p: { PolicyDocument: { Statement: unknown[] } }) => p.PolicyDocument.Statement,
        ),
      ])
      .filter((statement) => JSON.stringify(statement).includes(adminId));
    expect(invokeStatements).toEqual([]);
  });

  it('outputs its name as AdminFunctionName', () => {
    synth.template.hasOutput('AdminFunctionName', { Value: { Ref: adminId } });
  });

  it('is updated only after the migrations ran', () => {
    expect(resources[adminId]?.DependsOn).toContain(idsOfType(synth.template, 'Custom::Trigger')[0]);
  });
});

describe('the no-invoke check', () => {
  it('finds a grant when one is added (so the assertions above can fail)', () => {
    const synth = synthesise('feature-y', {
      extend: (stack) => {
        stack.functions.admin.addPermission('Gateway', {
          principal: new ServicePrincipal('apigateway.amazonaws.com'),
        });
      },
    });
    const adminId = logicalId(synth.stack, synth.stack.functions.admin);
    const referrers = Object.entries(allResourcesOf(synth.stack))
      .filter(([id]) => id !== adminId)
      .flatMap(([id, resource]) => referencesTo(adminId, resource.Properties, id));
    expect(referrers).toEqual([expect.stringMatching(/^FunctionsAdminGateway\w+\.FunctionName$/)]);
  });
});
