import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { defineCiApp } from '#infra/ci-stack.ts';
import { cdkJsonContext, type Synthesised, synthesise, synthesiseBase } from './synth.ts';

/**
 * CDK's built-in CloudFormation validation (the resource schemas, checked by
 * @aws/cloudformation-validate), which every `cdk synth` and deploy runs, and which cdk.json's
 * `@aws-cdk/core:validateAgainstDefaultRules` turns from warnings into failures. The other infra
 * tests synthesise without it (test/infra/synth.ts); here it runs once on each kind of stack
 * (staging builds prod's resources with other values).
 */
const report = (outdir: string) => JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));

describe('CloudFormation validation of each kind of stack', () => {
  it.each([
    ['prod, with webhooks', () => synthesise('prod', { validate: true, webhooks: true })],
    ['a branch preview', () => synthesise('feature-x', { validate: true })],
    ['the sandbox', () => synthesise('sandbox', { validate: true })],
  ])('%s: no finding, errors or warnings', (_, synth: () => Synthesised) => {
    expect(report(synth().outdir).pluginReports).toEqual([]);
  });

  it('the preview base: no finding, errors or warnings', () => {
    const { app } = synthesiseBase({ validate: true });
    expect(report(app.outdir).pluginReports).toEqual([]);
  });

  it.each(['preview', 'prod'] as const)('the CI identity of the %s account: no finding', (account) => {
    const app = new App();
    defineCiApp(app, { repository: 'example-org/voice-agent-admin-api', account });
    expect(report(app.synth().directory).pluginReports).toEqual([]);
  });

  it("fails synthesis, with cdk.json's settings, on a property the resource type lacks or of the wrong type", () => {
    const app = new App({ context: cdkJsonContext });
    new CfnResource(new Stack(app, 'Careless'), 'Queue', {
      type: 'AWS::SQS::Queue',
      properties: { VisibilityTimeout: 'soon', Retention: 60 },
    });
    const synth = () => app.synth();
    expect(synth).toThrow(/'Retention' was unexpected/);
    expect(synth).toThrow(/'soon' is not of type 'integer'/);
  });
});
