import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_PATTERN } from '#functions/http/bearer.ts';
import { USAGE_KEY_PREFIX_ENV } from '#functions/usage-plan-keys.ts';
import { synthesise } from './synth.ts';

// biome-ignore lint/suspicious/noExplicitAny: template JSON read ad hoc
type Resource = { Type: string; Properties?: any };

/**
 * Every resource of the prod app, across every template it synthesises (nested stacks included):
 * found by type and properties, whatever the stack layout.
 */
function prodResources(): Resource[] {
  const { app, outdir } = synthesise('prod');
  app.synth();
  return readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .flatMap(
      (file) =>
        Object.values(JSON.parse(readFileSync(join(outdir, file), 'utf8')).Resources ?? {}) as Resource[],
    );
}

describe('the edge of the prod stage, as synthesised', () => {
  const resources = prodResources();
  const ofType = (type: string) => resources.filter((r) => r.Type === type);
  const [acl] = ofType('AWS::WAFv2::WebACL');
  const rules = [...(acl?.Properties.Rules ?? [])].sort((a, b) => a.Priority - b.Priority);
  const rule = (name: string) => rules.find((r) => r.Name === name);

  it('limits one address to at most a tenth of the stage throttle', () => {
    const [stage] = ofType('AWS::ApiGateway::Stage');
    const rate = stage?.Properties.MethodSettings.find(
      (s: { ThrottlingRateLimit?: number }) => s.ThrottlingRateLimit,
    )?.ThrottlingRateLimit as number;
    expect(rate).toBeGreaterThan(0);
    const { Limit, EvaluationWindowSec } = rule('rate-per-ip').Statement.RateBasedStatement;
    expect(Limit).toBeLessThanOrEqual(0.1 * rate * EvaluationWindowSec);
    expect(ofType('AWS::WAFv2::WebACLAssociation')).toHaveLength(1);
  });

  it('refuses an Authorization not of the token shape before anything reaches the authorizer', () => {
    const shape = rule('token-shape');
    expect(shape.Statement.NotStatement.Statement.RegexMatchStatement.RegexString).toBe(
      AUTHORIZATION_PATTERN,
    );
    expect(shape.Action.Block.CustomResponse.ResponseCode).toBe(401);
    // Only the per-IP rate and the repeated-header rule come first; both block, neither allows.
    for (const earlier of rules.slice(0, rules.indexOf(shape)))
      expect(earlier.Action).toHaveProperty('Block');
    // Every rule after it can only block or count: the web ACL itself runs before API Gateway's authorizer.
    expect(acl?.Properties.DefaultAction).toEqual({ Allow: {} });
    expect(rules.some((r) => r.Action?.Allow)).toBe(false);
  });

  it("excludes the common rule set's body rules on the prompt routes only", () => {
    const statement = JSON.stringify(rule('AWSManagedRulesCommonRuleSet-block').Statement);
    expect(statement).toContain('CrossSiteScripting_Body');
    expect(statement).toContain('^(/v1)?/agents/[^/]+/versions/?$');
    expect(rule('AWSManagedRulesCommonRuleSet').OverrideAction).toEqual({ Count: {} });
  });

  it('answers both throttling responses with Retry-After, and lets the defaults keep their status', () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse');
    const of = (type: string) => responses.find((r) => r.Properties.ResponseType === type)?.Properties;
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      expect(of(type).StatusCode).toBe('429');
      expect(of(type).ResponseParameters['gatewayresponse.header.retry-after']).toMatch(/^'\d+'$/);
    }
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      expect(of(type).StatusCode).toBeUndefined();
      expect(of(type).ResponseTemplates['application/json']).not.toContain('"status"');
    }
    expect(of('INVALID_API_KEY').StatusCode).toBe('503');
  });

  it('gives the authorizer and the admin function the same usage key prefix', () => {
    const prefixes = ofType('AWS::Lambda::Function')
      .map((fn) => fn.Properties.Environment?.Variables?.[USAGE_KEY_PREFIX_ENV])
      .filter((value) => value !== undefined);
    expect(prefixes).toHaveLength(2);
    expect(new Set(prefixes.map((p) => JSON.stringify(p))).size).toBe(1);
  });
});
