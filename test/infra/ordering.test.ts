import { type NestedStack, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { idsOfType, logicalId, type Resources, resourcesOf, type Synthesised, synthesise } from './synth.ts';

/** Every resource `id` waits for, directly or through DependsOn and Ref/GetAtt chains. */
function prerequisites(resources: Resources, id: string, seen = new Set<string>()): Set<string> {
  const resource = resources[id];
  if (!resource) return seen;
  const refs = JSON.stringify(resource.Properties ?? {}).matchAll(/"(?:Ref|Fn::GetAtt)":\[?"([A-Za-z0-9]+)/g);
  for (const next of [...(resource.DependsOn ?? []), ...[...refs].map((m) => m[1] as string)]) {
    if (resources[next] && !seen.has(next)) {
      seen.add(next);
      prerequisites(resources, next, seen);
    }
  }
  return seen;
}

describe.each(['prod', 'staging'])('the migration trigger of %s', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  let triggerId: string;
  beforeAll(() => {
    synth = synthesise(stage);
    resources = resourcesOf(synth.template);
    triggerId = idsOfType(synth.template, 'Custom::Trigger')[0] as string;
  });

  it('runs before any API function is created or updated', () => {
    for (const fn of synth.stack.functions.all) {
      // A function of a nested route stack waits through its stack's resource in the parent.
      const nested = Stack.of(fn) === synth.stack ? undefined : (Stack.of(fn) as NestedStack);
      const waiting = nested
        ? logicalId(synth.stack, nested.nestedStackResource as never)
        : logicalId(synth.stack, fn);
      expect(resources[waiting]?.DependsOn, fn.node.path).toContain(triggerId);
    }
  });

  it('runs after the writer instance and the network paths exist (the master secret comes with the cluster)', () => {
    const before = prerequisites(resources, triggerId);
    const writer = idsOfType(synth.template, 'AWS::RDS::DBInstance')[0] as string;
    expect(before).toContain(writer);
    expect(before).toContain(idsOfType(synth.template, 'AWS::EC2::VPCEndpoint')[0]);
    expect(before).toContain(idsOfType(synth.template, 'AWS::RDS::DBCluster')[0]);
    for (const rule of [
      ...idsOfType(synth.template, 'AWS::EC2::SecurityGroupIngress'),
      ...idsOfType(synth.template, 'AWS::EC2::SecurityGroupEgress'),
    ].filter((id) => id.includes('Migrations'))) {
      expect(before).toContain(rule);
    }
    for (const fn of synth.stack.functions.all) expect(before).not.toContain(logicalId(synth.stack, fn));
  });

  it('lets the migration finish before the trigger provider waiting for it gives up', () => {
    const trigger = resources[triggerId]?.Properties;
    const migration = resources[logicalId(synth.stack, synth.stack.migrations.function)]?.Properties;
    const provider = resources[trigger.ServiceToken['Fn::GetAtt'][0]]?.Properties;
    expect(Number(trigger.Timeout)).toBe(migration.Timeout * 1000);
    expect(migration.Timeout).toBeLessThan(provider.Timeout);
  });

  it('runs again whenever the migration function, and so its bundled migrations, change', () => {
    const trigger = resources[triggerId]?.Properties;
    expect(trigger.ExecuteOnHandlerChange).toBe(true);
    expect(trigger.InvocationType).toBe('RequestResponse');
    const version = resources[trigger.HandlerArn.Ref];
    expect(version?.Type).toBe('AWS::Lambda::Version');
    expect(version?.Properties.FunctionName).toEqual({
      Ref: logicalId(synth.stack, synth.stack.migrations.function),
    });
  });
});
