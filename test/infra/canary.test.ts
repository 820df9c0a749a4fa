/**
 * The canary sees a bad version: a real route handler that answers 500 (its database throws)
 * writes an embedded-metric record whose namespace, metric and dimensions are exactly those the
 * release's rollback alarm watches in the synthesized prod template, for the version being
 * released; one such answer breaches the alarm.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#contract/routes.ts';
import type { DatabaseClient } from '#db/database.ts';
import { build } from '#functions/agents/get.ts';
import { createLogger } from '#functions/http/log.ts';
import { RELEASE_METRICS } from '#functions/http/release-metrics.ts';
import type { ApiEvent } from '#functions/http/types.ts';
import { RELEASE_ALARM_PERIOD } from '#infra/constructs/releases.ts';
import { type CfnTemplate, Deployed, templatesOfAssembly } from './iam-templates.ts';
import { logicalId, type Synthesised, synthesise } from './synth.ts';

// biome-ignore lint/suspicious/noExplicitAny: template JSON
type Json = any;

const route = routes.getAgent;

/** A database whose every statement fails as a bug would: the handler answers 500. */
const brokenDatabase = {
  run: async () => {
    throw new TypeError('a bug in the new version');
  },
} as unknown as DatabaseClient;

const event = {
  httpMethod: 'GET',
  path: '/agents/agt_1',
  pathParameters: { agentId: 'agt_1' },
  headers: {},
  requestContext: {
    requestId: 'req-canary',
    authorizer: { workspaceId: 'ws_1', principalId: 'p', keyId: 'k', scopes: route.scope },
  },
} as unknown as ApiEvent;

describe('the canary of a release', () => {
  let synth: Synthesised;
  let deployed: Deployed;
  let t: CfnTemplate;
  beforeAll(() => {
    synth = synthesise('prod');
    const templates = templatesOfAssembly(synth.app.synth().directory);
    deployed = new Deployed(templates);
    // The route's function, alias, release and alarms share one (nested) template.
    const { group } = synth.stack.releaseOf(route.name) as NonNullable<
      ReturnType<typeof synth.stack.releaseOf>
    >;
    const groupId = logicalId(synth.stack, group as never);
    t = templates.find((template) => template.body.Resources?.[groupId]) as CfnTemplate;
  }, 120_000);

  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  /** The template's alarm, and the metric of it the handler's answers feed, resolved as deployed. */
  function failuresAlarm() {
    const [failures] = synth.stack.releaseOf(route.name)?.releases.alarms.get(route.name) ?? [];
    const id = logicalId(synth.stack, failures as never);
    const alarm = deployed.resolve(t, t.body.Resources[id].Properties);
    const served = alarm.Metrics.find(
      (m: Json) => m.MetricStat?.Metric.MetricName === RELEASE_METRICS.serverErrors,
    );
    return { id, alarm, served };
  }

  it('hears of every 500 from the version that answered it, in the namespace, name and dimensions its alarm watches', async () => {
    const { alarm, served } = failuresAlarm();
    // What Lambda tells the released version about itself: its name and version, as deployed.
    const dims = Object.fromEntries(served.MetricStat.Metric.Dimensions.map((d: Json) => [d.Name, d.Value]));
    process.env.AWS_LAMBDA_FUNCTION_NAME = deployed.ref(
      t,
      logicalId(synth.stack, synth.stack.functions.functionByRoute.get(route) as never),
    );
    // The version the release moves the alias to.
    const aliasId = logicalId(synth.stack, synth.stack.functions.byRoute.get(route) as never);
    process.env.AWS_LAMBDA_FUNCTION_VERSION = deployed.resolve(
      t,
      t.body.Resources[aliasId].Properties.FunctionVersion,
    );
    const lines: string[] = [];
    const handler = build({
      database: brokenDatabase,
      logger: createLogger((line) => lines.push(line), 'info'),
    });

    const answer = await handler(event);

    expect(answer.statusCode).toBe(500);
    const records = lines.map((line) => JSON.parse(line)).filter((record) => record._aws);
    expect(records).toHaveLength(1);
    const [record] = records;
    const [directive] = record._aws.CloudWatchMetrics;
    expect(directive.Namespace).toBe(served.MetricStat.Metric.Namespace);
    expect(directive.Metrics.map((m: Json) => m.Name)).toContain(served.MetricStat.Metric.MetricName);
    expect(directive.Dimensions).toEqual([Object.keys(dims).sort()]);
    for (const [name, value] of Object.entries(dims)) expect(record[name], name).toBe(value);
    // One answer is a breach: Sum of 1 over a minute, greater than 0, no more periods needed.
    expect(record[RELEASE_METRICS.serverErrors]).toBe(1);
    expect(served.MetricStat).toMatchObject({ Stat: 'Sum', Period: RELEASE_ALARM_PERIOD.toSeconds() });
    expect(served.ReturnData).toBe(false);
    const expression = alarm.Metrics.find((m: Json) => m.Expression);
    expect(expression.Expression).toBe(`FILL(${served.Id}, 0) + FILL(crashed, 0)`);
    expect(alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
    });
  });

  it('writes no metric outside Lambda, and counts a 4xx as no failure', async () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    delete process.env.AWS_LAMBDA_FUNCTION_VERSION;
    const lines: string[] = [];
    await build({ database: brokenDatabase, logger: createLogger((line) => lines.push(line), 'info') })(
      event,
    );
    expect(lines.some((line) => line.includes('_aws'))).toBe(false);

    process.env.AWS_LAMBDA_FUNCTION_NAME = 'fn';
    process.env.AWS_LAMBDA_FUNCTION_VERSION = '3';
    const unauthenticated = { ...event, requestContext: { requestId: 'r' } } as unknown as ApiEvent;
    const database = {
      run: async (work: (sql: unknown) => Promise<unknown>) => work({}),
    } as unknown as DatabaseClient;
    lines.length = 0;
    const answer = await build({ database, logger: createLogger((line) => lines.push(line), 'info') })(
      unauthenticated,
    );
    expect(answer.statusCode).toBe(401);
    const record = lines.map((line) => JSON.parse(line)).find((r) => r._aws);
    expect(record[RELEASE_METRICS.serverErrors]).toBe(0);
    expect(record.Version).toBe('3');
  });

  it('makes the failure alarm a rollback trigger of the route’s deployment group, watched before traffic moves', () => {
    const { id } = failuresAlarm();
    const group = synth.stack.releaseOf(route.name)?.group;
    const groupProps = t.body.Resources[logicalId(synth.stack, group as never)].Properties;
    expect(groupProps.AlarmConfiguration.Alarms).toContainEqual({ Name: { Ref: id } });
    const alias = t.body.Resources[logicalId(synth.stack, synth.stack.functions.byRoute.get(route) as never)];
    expect(alias.DependsOn).toContain(id);
  });
});
