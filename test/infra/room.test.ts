import { describe, expect, it } from 'vitest';
import { type Route, routeList } from '#contract/routes.ts';
import { resourcesOf, synthesise, synthesiseBase, templatesOf } from './synth.ts';

/** CloudFormation refuses a template over 500 resources; this leaves a margin for what comes next. */
const PROD_CEILING = 450;
const EXTRA_ROUTES = 30;

/** Rows a later issue might add: each its own path and function (bundling is skipped here). */
const extraRoutes: Route[] = Array.from({ length: EXTRA_ROUTES }, (_, i) => ({
  name: `extra-route-${i + 1}`,
  method: i % 2 ? 'POST' : 'GET',
  path: `/extras/{extraId}/part-${i + 1}`,
  entry: routeList[0]?.entry as string,
  scope: routeList[0]?.scope as Route['scope'],
  summary: `Extra route ${i + 1}`,
}));
const routes = [...routeList, ...extraRoutes];

/** Per template (parent and nested): resource count and count of each type. */
function census(stage: string) {
  const { stack } = synthesise(stage, { routes });
  return [...templatesOf(stack)].map(([path, template]) => {
    const resources = Object.values(resourcesOf(template));
    const ofType = (type: string) => resources.filter((r) => r.Type === type).length;
    return { path, total: resources.length, ofType };
  });
}

describe(`room to grow: the route table plus ${EXTRA_ROUTES} more routes`, () => {
  it(`keeps every prod template, parent and nested, under ${PROD_CEILING} resources`, () => {
    const templates = census('prod');
    // The route functions are in nested stacks: more than one template.
    expect(templates.length).toBeGreaterThan(1);
    for (const { path, total } of templates) expect(total, path).toBeLessThanOrEqual(PROD_CEILING);
    const methods = templates.reduce((sum, t) => sum + t.ofType('AWS::ApiGateway::Method'), 0);
    expect(methods).toBe(routes.length);
  }, 300_000);

  it('keeps a branch preview within 5 resources a route plus 40, 4 roles, 5 alarms, no CodeDeploy and no account setting', () => {
    const templates = census('ci-preview');
    expect(templates).toHaveLength(1);
    const [preview] = templates;
    if (!preview) throw new Error('no template');
    expect(preview.ofType('AWS::ApiGateway::Method')).toBe(routes.length);
    expect(preview.total).toBeLessThanOrEqual(5 * routes.length + 40);
    expect(preview.ofType('AWS::IAM::Role')).toBeLessThanOrEqual(4);
    expect(preview.ofType('AWS::CloudWatch::Alarm')).toBeLessThanOrEqual(5);
    expect(preview.ofType('AWS::CloudWatch::Dashboard')).toBe(0);
    expect(preview.ofType('AWS::CodeDeploy::Application')).toBe(0);
    expect(preview.ofType('AWS::CodeDeploy::DeploymentGroup')).toBe(0);
    expect(preview.ofType('AWS::ApiGateway::Account')).toBe(0);
  }, 300_000);

  it("sets API Gateway's account role once per account: in prod and in the preview base", () => {
    const base = synthesiseBase();
    base.template.resourceCountIs('AWS::ApiGateway::Account', 1);
    const { template } = synthesise('prod');
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
  }, 300_000);
});
