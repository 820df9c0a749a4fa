/**
 * The quota and idle-cost table of docs/deploying.md, computed from the synthesised templates
 * (prod, the preview base, a branch preview), so that it cannot drift from them:
 * `npm run docs:quotas` writes it between its markers; test/docs/quota-table.test.ts fails when
 * the committed table differs.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { defineBaseApp } from '#infra/preview-base.ts';
import { defineApp } from '#infra/stack.ts';
import { PREVIEW_BASE, PROD, repoRoot, stageConfig } from '#infra/stage.ts';

export const START = '<!-- quota-table:start (npm run docs:quotas writes this) -->';
export const END = '<!-- quota-table:end -->';

/** USD a month, us-east-1 list prices (each with the page it is read from, cited in the doc). */
export const PRICES = {
  /** https://aws.amazon.com/cloudwatch/pricing/ */
  alarm: 0.1,
  highResolutionAlarm: 0.3,
  /** Beyond the account's first 3, which are free. */
  dashboard: 3,
  /** https://aws.amazon.com/secrets-manager/pricing/ */
  secret: 0.4,
  /** https://aws.amazon.com/kms/pricing/ */
  kmsKey: 1,
  /** https://aws.amazon.com/waf/pricing/ */
  webAcl: 5,
  wafRule: 1,
  /** https://aws.amazon.com/privatelink/pricing/: $0.01 an hour per AZ, 730 hours. */
  interfaceEndpointAz: 7.3,
} as const;

/** Account quotas (defaults) a branch preview uses, and what else in the account takes from them. */
export const ACCOUNT_QUOTAS = [
  {
    name: 'IAM roles per account',
    quota: 1000,
    // CDK's bootstrap (5), the deploy identity's, an operator's few.
    reserved: 20,
    perPreview: (s: Census) => s.roles,
    base: (s: Census) => s.roles,
  },
  {
    name: 'CloudFormation stacks per region',
    quota: 2000,
    // CDKToolkit and the deploy identity.
    reserved: 2,
    perPreview: (s: Census) => s.templates,
    base: (s: Census) => s.templates,
  },
  {
    name: 'regional REST APIs per region',
    quota: 600,
    reserved: 0,
    perPreview: (s: Census) => s.count('AWS::ApiGateway::RestApi'),
    base: (s: Census) => s.count('AWS::ApiGateway::RestApi'),
  },
  {
    name: 'API Gateway usage plans per region',
    quota: 300,
    reserved: 0,
    perPreview: (s: Census) => s.count('AWS::ApiGateway::UsagePlan'),
    base: (s: Census) => s.count('AWS::ApiGateway::UsagePlan'),
  },
] as const;

interface Resource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: template properties are free-form JSON
  Properties?: any;
}

export interface Census {
  stack: string;
  templates: number;
  resources: number;
  largestTemplate: number;
  roles: number;
  alarms: number;
  highResolutionAlarms: number;
  functions: number;
  count: (type: string) => number;
  idle: { total: number; parts: string[] };
}

const cdkContext = () => JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')).context;

/** Every template of a stack: its own and its nested stacks', as `cdk synth` writes them. */
function templatesOf(app: App, stack: Stack): Resource[][] {
  const assembly = app.synth();
  const nested = stack.node
    .findAll()
    .filter((c: IConstruct): c is NestedStack => c instanceof NestedStack)
    .map((n) => JSON.parse(readFileSync(join(assembly.directory, n.templateFile), 'utf8')));
  const parent = assembly.getStackByName(stack.stackName).template;
  return [parent, ...nested].map((t) => Object.values(t.Resources ?? {}) as Resource[]);
}

/** An alarm below a 60 s period is high resolution (the metric's own period, or its math's). */
const isHighResolution = (alarm: Resource) => {
  const periods = [
    alarm.Properties?.Period,
    ...(alarm.Properties?.Metrics ?? []).map(
      (m: { MetricStat?: { Period?: number } }) => m.MetricStat?.Period,
    ),
  ].filter((p): p is number => typeof p === 'number');
  return periods.some((p) => p < 60);
};

const usd = (n: number) => `$${n.toFixed(2)}`;

function census(stack: string, templates: Resource[][]): Census {
  const all = templates.flat();
  const ofType = (type: string) => all.filter((r) => r.Type === type);
  const count = (type: string) => ofType(type).length;
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const highResolutionAlarms = alarms.filter(isHighResolution).length;
  // RDS keeps the master password in a secret of its own when it manages it.
  const secrets =
    count('AWS::SecretsManager::Secret') +
    ofType('AWS::RDS::DBCluster').filter((c) => c.Properties?.ManageMasterUserPassword === true).length;
  const wafRules = ofType('AWS::WAFv2::WebACL').reduce(
    (n, acl) => n + (acl.Properties?.Rules?.length ?? 0),
    0,
  );
  const endpointAzs = ofType('AWS::EC2::VPCEndpoint')
    .filter((e) => e.Properties?.VpcEndpointType === 'Interface')
    .reduce((n, e) => n + (e.Properties?.SubnetIds?.length ?? 0), 0);
  const lines: [string, number, number][] = [
    ['alarms', alarms.length - highResolutionAlarms, PRICES.alarm],
    ['high-resolution alarms', highResolutionAlarms, PRICES.highResolutionAlarm],
    ['dashboards', count('AWS::CloudWatch::Dashboard'), PRICES.dashboard],
    ['secrets', secrets, PRICES.secret],
    ['KMS keys', count('AWS::KMS::Key'), PRICES.kmsKey],
    ['web ACLs', count('AWS::WAFv2::WebACL'), PRICES.webAcl],
    ['WAF rules', wafRules, PRICES.wafRule],
    ['interface endpoint AZs', endpointAzs, PRICES.interfaceEndpointAz],
  ];
  const parts = lines.filter(([, n]) => n > 0).map(([what, n, price]) => `${n} ${what} ${usd(n * price)}`);
  return {
    stack,
    templates: templates.length,
    resources: all.length,
    largestTemplate: Math.max(...templates.map((t) => t.length)),
    roles: count('AWS::IAM::Role'),
    alarms: alarms.length,
    highResolutionAlarms,
    functions: count('AWS::Lambda::Function'),
    count,
    idle: { total: lines.reduce((sum, [, n, price]) => sum + n * price, 0), parts },
  };
}

/**
 * The stack of one stage, synthesised offline without bundling or CloudFormation validation (only
 * the resources are counted here; `cdk synth` validates them).
 */
function synthesise(stage: string): Census {
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'vaa-quotas-')),
    context: { ...cdkContext(), 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const stack =
    stage === PREVIEW_BASE
      ? defineBaseApp(app)
      : defineApp(app, stageConfig(stage, { alarmEmail: 'alarms@example.invalid' }));
  return census(stack.stackName, templatesOf(app, stack));
}

/** The stage a branch preview's numbers are read from (every branch preview synthesises alike). */
export const SAMPLE_PREVIEW = 'ci-preview';

export interface QuotaFigures {
  prod: Census;
  base: Census;
  preview: Census;
  /** How many branch previews one account and region holds, per quota, the binding one first. */
  capacity: { name: string; quota: number; perPreview: number; previews: number }[];
}

export function quotaFigures(): QuotaFigures {
  const prod = synthesise(PROD);
  const base = synthesise(PREVIEW_BASE);
  const preview = synthesise(SAMPLE_PREVIEW);
  const capacity = ACCOUNT_QUOTAS.map((q) => {
    const perPreview = q.perPreview(preview);
    const left = q.quota - q.reserved - q.base(base);
    return { name: q.name, quota: q.quota, perPreview, previews: Math.floor(left / perPreview) };
  }).sort((a, b) => a.previews - b.previews);
  return { prod, base, preview, capacity };
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** The markdown between the markers. */
export function renderQuotaTable(figures: QuotaFigures = quotaFigures()): string {
  const { prod, base, preview, capacity } = figures;
  const row = (what: string, c: Census) =>
    `| ${what} | ${c.templates} | ${c.resources} (largest ${c.largestTemplate}) | ${c.roles} | ${c.alarms} | ${c.functions} | ${usd(c.idle.total)}: ${c.idle.parts.join(', ') || 'nothing billed idle'} |`;
  const [binding] = capacity;
  return [
    '| stack | templates | resources (largest template of 500) | IAM roles | alarms | functions | idle cost a month |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row(`prod (\`${prod.stack}\`)`, prod),
    row(`preview base (\`${base.stack}\`)`, base),
    row(`a branch preview (\`${preview.stack}\`)`, preview),
    '',
    `A branch preview adds ${usd(preview.idle.total)} a month idle. How many one account and region holds, next to the preview base (AWS defaults):`,
    '',
    '| quota | default | per branch preview | branch previews |',
    '| --- | --- | --- | --- |',
    ...capacity.map(
      (c) => `| ${c.name} | ${thousands(c.quota)} | ${c.perPreview} | ${thousands(c.previews)} |`,
    ),
    '',
    `The binding quota: ${binding?.name}, at ${thousands(binding?.previews ?? 0)} previews.`,
  ].join('\n');
}

/** `text` with the block between the markers replaced by `table`. */
export function withQuotaTable(text: string, table: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/deploying.md has no ${START} … ${END} block`);
  return `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`;
}

/** The committed block, as written between the markers. */
export function committedQuotaTable(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/deploying.md has no ${START} … ${END} block`);
  return text.slice(start + START.length, end).trim();
}

export const DEPLOYING_DOC = join(repoRoot, 'docs', 'deploying.md');
