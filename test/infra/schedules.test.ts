import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_RETENTION_DAYS, SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';
import { KeyRequest } from '#functions/usage-plan-keys-handler.ts';
import { RELAY_ENTRY, SWEEP_ENTRY } from '#infra/constructs/functions.ts';
import type { UsagePlanKeysFunction } from '#infra/constructs/usage-plan-keys.ts';
import { allResourcesOf, type Resources, type Synthesised, synthesise } from './synth.ts';

describe.each(['prod', 'pr-7'])('the %s stack’s schedules', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage, { alarmEmail: 'ops@example.com' });
    resources = allResourcesOf(synth.stack);
  });

  it('runs the stale-session sweep and the event purge every minute, through an EventBridge rule allowed to invoke it (disabled in a branch preview)', () => {
    const sweep = synth.stack.functions.sweep;
    const sweepId = synth.stack.getLogicalId(sweep.node.defaultChild as never);
    const rules = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.ScheduleExpression !== undefined,
    );
    // The relay's and the usage keys', where the stack has them (not in a branch preview).
    expect(rules).toHaveLength(
      1 + (synth.stack.functions.relay ? 1 : 0) + (synth.stack.schedules.usageKeysRule ? 1 : 0),
    );
    const [ruleId, rule] = rules.find(
      ([id]) => id === synth.stack.getLogicalId(synth.stack.schedules.sweepRule.node.defaultChild as never),
    ) as [string, Resources[string]];
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      // A branch preview's would keep the shared preview cluster from pausing (docs/deploying.md).
      State: stage.startsWith('pr-') ? 'DISABLED' : 'ENABLED',
      Description: `Completes sessions without a heartbeat for ${SESSION_STALE_AFTER_SECONDS} s; purges published events older than ${EVENT_RETENTION_DAYS} days`,
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [sweepId, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 120 },
        },
      ],
    });
    const permission = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::Lambda::Permission' &&
        r.Properties.Principal === 'events.amazonaws.com' &&
        JSON.stringify(r.Properties.SourceArn) === JSON.stringify({ 'Fn::GetAtt': [ruleId, 'Arn'] }),
    );
    expect(permission?.Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweepId, 'Arn'] },
    });
    // Bundled from its own module, connected to the database like the API's functions.
    expect(resources[sweepId]?.Properties.Description).toMatch(/stale.*purges published events/);
    // Room for the sweep's statement and the purge's batches, each within the 7 s request deadline.
    expect(resources[sweepId]?.Properties.Timeout).toBe(30);
    expect(synth.stack.functions.all).toContain(sweep);
    expect(SWEEP_ENTRY).toBe('functions/sessions/sweep.ts');
  });

  it('runs the outbox relay every minute onto the stage’s own bus (not in a branch preview)', () => {
    const relay = synth.stack.functions.relay;
    const buses = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Events::EventBus');
    if (stage.startsWith('pr-')) {
      // A branch preview has neither (docs/deploying.md, Events on EventBridge): its functions have
      // no route to EventBridge, and its events stay in GET /events (unpublished, never purged).
      expect(relay).toBeUndefined();
      expect(buses).toHaveLength(0);
      expect(Object.values(resources).filter((r) => r.Type === 'AWS::EC2::VPCEndpoint')).toHaveLength(0);
      expect(JSON.stringify(synth.template.toJSON())).not.toContain('events:PutEvents');
      return;
    }
    if (!relay) throw new Error('no relay');
    const relayId = synth.stack.getLogicalId(relay.node.defaultChild as never);
    const [busId, bus] = buses[0] as [string, Resources[string]];
    expect(buses).toHaveLength(1);
    expect(bus.Properties.Name).toBe(`voice-agent-admin-${stage}`);
    const rule = synth.stack.schedules.relayRule;
    const ruleId = synth.stack.getLogicalId(rule?.node.defaultChild as never);
    expect(resources[ruleId]?.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': [relayId, 'Arn'] } }],
    });
    expect(resources[relayId]?.Properties).toMatchObject({
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: { EVENT_BUS_NAME: { Ref: busId } } },
    });
    // Only the relay may put events on the bus.
    const putters = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(r.Properties.PolicyDocument).includes('events:PutEvents'),
    );
    expect(putters).toHaveLength(1);
    expect(putters[0]?.Properties.Roles).toEqual([
      { Ref: synth.stack.getLogicalId(relay.role?.node.defaultChild as never) },
    ]);
    expect(RELAY_ENTRY).toBe('functions/events/relay.ts');
  });
});

describe.each(['prod', 'pr-7'])('the %s stack’s usage key reconcile', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage, { alarmEmail: 'ops@example.com' });
    resources = allResourcesOf(synth.stack);
  });

  it('runs the key function over the whole pool every 5 minutes on a durable stage, never in a branch preview', () => {
    const rule = synth.stack.schedules.usageKeysRule;
    if (stage.startsWith('pr-')) {
      // A preview's pool is made as its workspaces use it: a whole pool each would spend the account's keys.
      expect(rule).toBeUndefined();
      return;
    }
    const keys = synth.stack.node.findChild('UsagePlanKeys') as UsagePlanKeysFunction;
    const keysId = synth.stack.getLogicalId(keys.function.node.defaultChild as never);
    const ruleId = synth.stack.getLogicalId(rule?.node.defaultChild as never);
    expect(resources[ruleId]?.Properties).toMatchObject({
      Description: "Keeps every key of the stage's usage key pool in its tier's plan",
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [keysId, 'Arn'] },
          Input: JSON.stringify({ op: 'reconcilePool' }),
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 240 },
        },
      ],
    });
    // The input is a request the key function accepts, and the rule may invoke it (and only it).
    expect(v.parse(KeyRequest, { op: 'reconcilePool' })).toEqual({ op: 'reconcilePool' });
    const permissions = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::Permission' &&
        JSON.stringify(r.Properties.SourceArn) === JSON.stringify({ 'Fn::GetAtt': [ruleId, 'Arn'] }),
    );
    expect(permissions.map((p) => p.Properties)).toEqual([
      expect.objectContaining({
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [keysId, 'Arn'] },
      }),
    ]);
  });
});
