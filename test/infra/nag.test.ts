import { Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Synthesised, synthesise } from './synth.ts';

/** `AwsSolutions-…` acknowledgements in the tree: rule id → reason, with where they were made. */
function nagAcknowledgements(root: IConstruct) {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .filter(([id]) => id.includes('AwsSolutions-'))
      .map(([id, reason]) => ({ path: construct.node.path, id, reason })),
  );
}

describe.each(['prod', 'staging', 'feature-x'])('cdk-nag AwsSolutions checks on %s', (stage) => {
  let app: Synthesised['app'];
  beforeAll(() => {
    // synthesise() already fails on a finding (the checks run as a validation plugin); these say which.
    app = synthesise(stage).app;
  });

  it('leave no finding unacknowledged, errors or warnings', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    const findings = report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.description}`);
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('give every acknowledgement a one-line reason', () => {
    const acknowledgements = nagAcknowledgements(app);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { reason } of acknowledgements) expect(reason).toMatch(/^[^\n]{20,}$/);
  });

  it('fails synthesis on a new, unacknowledged finding', () => {
    const extend = (stack: Synthesised['stack']) => new Topic(stack, 'PlainTopic');
    expect(() => synthesise(stage, { extend })).toThrow(/AwsSolutions-SNS3/);
  });
});
