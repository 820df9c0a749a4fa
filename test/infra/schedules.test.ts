import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';
import { SWEEP_ENTRY } from '#infra/constructs/functions.ts';
import { type Resources, resourcesOf, type Synthesised, synthesise } from './synth.ts';

describe.each(['prod', 'pr-7'])('the %s stack’s schedules', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage, { alarmEmail: 'ops@example.com' });
    resources = resourcesOf(synth.template);
  });

  it('runs the stale-session sweep every minute, through an EventBridge rule allowed to invoke it', () => {
    const sweep = synth.stack.functions.sweep;
    const sweepId = synth.stack.getLogicalId(sweep.node.defaultChild as never);
    const rules = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.ScheduleExpression !== undefined,
    );
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0] as [string, Resources[string]];
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Description: `Completes sessions without a heartbeat for ${SESSION_STALE_AFTER_SECONDS} s`,
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
    expect(resources[sweepId]?.Properties.Description).toMatch(/stale/);
    expect(synth.stack.functions.all).toContain(sweep);
    expect(SWEEP_ENTRY).toBe('functions/sessions/sweep.ts');
  });
});
