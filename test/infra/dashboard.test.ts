import { beforeAll, describe, expect, it } from 'vitest';
import { routeList } from '#contract/routes.ts';
import { PROXY_MAX_CONNECTIONS_PERCENT } from '#infra/constructs/database.ts';
import {
  ACU_UTILISATION_PERCENT,
  API_4XX_PERCENT,
  API_429_PER_PERIOD,
  approxMaxConnections,
  NEAR_LIMIT,
  proxyClientCap,
} from '#infra/constructs/monitoring.ts';
import { stageConfig } from '#infra/stage.ts';
import { allResourcesOf, type Resources, resourcesOf, type Synthesised, synthesise } from './synth.ts';

// Stacks with a cluster of their own (a branch preview on the base: below).
describe.each(['prod', 'staging'])('monitoring of the %s stack', (stage) => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise(stage, { alarmHttpsUrl: 'https://events.pager.example/integration/sns' });
    resources = resourcesOf(synth.template);
  });
  const alarm = (suffix: string) =>
    Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::CloudWatch::Alarm' && id.includes(suffix),
    )?.[1]?.Properties;

  it('has one dashboard named after the stage, showing every alarm', () => {
    const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.Properties.DashboardName).toBe(`VoiceAgentAdmin-${stage}`);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);
    // An alarm of a nested route stack appears through an output of that stack, named after it.
    for (const a of synth.stack.monitoring.alarms) expect(body).toContain(a.node.id);
    expect(body).toContain('ACUUtilization');
  });

  it('alarms on 4xx rate, throttling, ACU utilisation and failed secret rotations', () => {
    expect(alarm('Api4xxRate')?.Threshold).toBe(API_4XX_PERCENT);
    expect(alarm('Api429')).toMatchObject({ Threshold: API_429_PER_PERIOD, MetricName: 'Throttled' });
    expect(alarm('DatabaseAcuUtilisation')).toMatchObject({
      Threshold: ACU_UTILISATION_PERCENT,
      MetricName: 'ACUUtilization',
    });
    const rule = Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::Events::Rule' && r.Properties.EventPattern !== undefined,
    );
    expect(rule?.[1].Properties.EventPattern).toEqual({
      source: ['aws.secretsmanager'],
      'detail-type': ['AWS Service Event via CloudTrail'],
      detail: { eventName: ['RotationFailed', 'RotationAbandoned'] },
    });
    expect(alarm('SecretRotationFailed')).toMatchObject({
      Namespace: 'AWS/Events',
      MetricName: 'TriggeredRules',
      Dimensions: [{ Name: 'RuleName', Value: { Ref: rule?.[0] } }],
      Threshold: 0,
    });
  });

  it('alarms on connections below the cap that actually holds them', () => {
    const config = stageConfig(stage, { alarmEmail: 'a@example.com' });
    const max = approxMaxConnections(config.database.maxCapacity);
    const cap = config.database.proxy ? Math.floor((max * PROXY_MAX_CONNECTIONS_PERCENT) / 100) : max;
    expect(alarm('DatabaseConnections')?.Threshold).toBe(Math.floor(cap * NEAR_LIMIT));
    if (config.database.proxy) {
      // A stage with a proxy reserves concurrency: that is what caps its client connections.
      const { routeConcurrency = 0, authorizerConcurrency = 0 } = config.functions;
      expect(routeConcurrency).toBeGreaterThan(0);
      expect(authorizerConcurrency).toBeGreaterThan(0);
      const clients = routeList.length * routeConcurrency + authorizerConcurrency;
      expect(proxyClientCap(config, routeList.length + 1)).toBe(clients);
      expect(alarm('ProxyClientConnections')).toMatchObject({
        MetricName: 'ClientConnections',
        Threshold: Math.floor(clients * NEAR_LIMIT),
      });
    } else {
      expect(alarm('ProxyClientConnections')).toBeUndefined();
    }
  });

  it('can page: the alarm topic also posts to an HTTPS endpoint given as context', () => {
    synth.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: 'https://events.pager.example/integration/sns',
    });
    expect(() => stageConfig(stage, { alarmEmail: 'a@example.com', alarmHttpsUrl: 'http://x' })).toThrow(
      /https/,
    );
  });
});

describe('monitoring of a branch preview on the preview base', () => {
  let synth: Synthesised;
  let resources: Resources;
  beforeAll(() => {
    synth = synthesise('feature-x', { alarmHttpsUrl: 'https://events.pager.example/integration/sns' });
    resources = resourcesOf(synth.template);
  });

  it('has its API alarms only, no dashboard, and none for the cluster or secrets it does not own', () => {
    const dashboards = Object.values(allResourcesOf(synth.stack)).filter(
      (r) => r.Type === 'AWS::CloudWatch::Dashboard',
    );
    expect(dashboards).toHaveLength(0);
    expect(synth.stack.monitoring.alarms.map((a) => a.node.id).sort()).toEqual([
      'Api429',
      'Api4xxRate',
      'Api5xxRate',
      'ApiLatencyP99',
      'AuthorizerDenies',
    ]);
    const ids = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
      .map(([id]) => id);
    expect(ids.some((id) => id.includes('Api4xxRate'))).toBe(true);
    for (const owned of ['DatabaseConnections', 'DatabaseAcuUtilisation', 'SecretRotationFailed']) {
      expect(
        ids.filter((id) => id.includes(owned)),
        owned,
      ).toEqual([]);
    }
    synth.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'https' });
  });
});
