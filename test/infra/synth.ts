import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type AppProps, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import type { Route } from '#contract/routes.ts';
import { defineBaseApp, type PreviewBaseStack } from '#infra/preview-base.ts';
import { type AdminApiStack, defineApp } from '#infra/stack.ts';
import { repoRoot, type StageOptions, stageConfig } from '#infra/stage.ts';

/** An app of a test's own, without CDK's CloudFormation validation (as `synthesise` unless asked). */
export const testApp = (props: AppProps = {}) =>
  new App({ builtinCloudFormationValidation: false, ...props });

/** The feature flags and settings `cdk synth` reads, so that tests build the same templates. */
export const cdkJsonContext = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')).context;

export interface Synthesised {
  app: App;
  stack: AdminApiStack;
  template: Template;
  outdir: string;
}

/**
 * One stage's app as `cdk synth` builds it, cdk-nag included (synthesis throws on a finding).
 * Bundling is skipped unless asked for: it only matters to the tests that run the bundles. So is
 * CDK's built-in CloudFormation validation (a large part of each synthesis), which `cdk synth` also
 * runs: test/infra/cloudformation-validation.test.ts runs it on each kind of stack.
 */
export function synthesise(
  stage: string,
  options: StageOptions & {
    bundle?: boolean;
    /** CDK's built-in CloudFormation validation, as `cdk synth` runs it. */
    validate?: boolean;
    extend?: (stack: AdminApiStack) => void;
    /** The rows to deploy instead of the route table. */
    routes?: readonly Route[];
  } = {},
): Synthesised {
  // Kept for the worker's later files (vitest.config.ts: the infra tests share their worker's
  // modules), unless bundled (SOURCE_MAPS_DIR differs), extended or given other routes.
  const key =
    options.bundle || options.extend || options.routes
      ? undefined
      : JSON.stringify([stage, Object.entries(options).sort(([a], [b]) => a.localeCompare(b))]);
  const kept = key === undefined ? undefined : synthesised.get(key);
  if (kept) return kept;
  const result = synthesiseAnew(stage, options);
  if (key !== undefined) synthesised.set(key, result);
  return result;
}
const synthesised = new Map<string, Synthesised>();

function synthesiseAnew(stage: string, options: Parameters<typeof synthesise>[1] = {}): Synthesised {
  const outdir = mkdtempSync(join(tmpdir(), 'vaa-cdk-'));
  const app = new App({
    outdir,
    context: { ...cdkJsonContext, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
    builtinCloudFormationValidation: options.validate ?? false,
  });
  const { bundle: _, extend: __, validate: ___, routes, ...stageOptions } = options;
  const config = stageConfig(stage, {
    ...stageOptions,
    // Prod refuses to synthesise without one: a placeholder unless a test says otherwise.
    alarmEmail: 'alarmEmail' in options ? options.alarmEmail : 'alarms@example.com',
  });
  const stack = defineApp(app, config, routes);
  options.extend?.(stack);
  return { app, stack, template: Template.fromStack(stack), outdir };
}

/** The preview base (`-c stage=previews`) as `cdk synth` builds it, cdk-nag included. */
export function synthesiseBase({ validate = false } = {}): {
  app: App;
  stack: PreviewBaseStack;
  template: Template;
} {
  if (validate) return synthesiseBaseAnew(true);
  base ??= synthesiseBaseAnew(false);
  return base;
}
let base: ReturnType<typeof synthesiseBaseAnew> | undefined;

function synthesiseBaseAnew(validate: boolean) {
  const outdir = mkdtempSync(join(tmpdir(), 'vaa-cdk-'));
  const app = new App({
    outdir,
    context: { ...cdkJsonContext, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: validate,
  });
  const stack = defineBaseApp(app);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The template's resources, by logical id. */
export type Resources = Record<
  string,
  // biome-ignore lint/suspicious/noExplicitAny: template properties are free-form JSON the tests read ad hoc
  { Type: string; Properties?: any; DependsOn?: string[]; DeletionPolicy?: string }
>;
export const resourcesOf = (template: Template): Resources => template.toJSON().Resources;

/** A construct's logical id in its own template (the stack's, or the nested stack's it is in). */
export const logicalId = (_stack: AdminApiStack | PreviewBaseStack, construct: IConstruct) =>
  Stack.of(construct).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

/** How many resources of a type a stack and its nested stacks hold. */
export const countOf = (stack: Stack, type: string) =>
  [...templatesOf(stack).values()].reduce(
    (sum, template) => sum + Object.values(resourcesOf(template)).filter((r) => r.Type === type).length,
    0,
  );

/** Logical ids of every resource of one type. */
export const idsOfType = (template: Template, type: string) =>
  Object.entries(resourcesOf(template))
    .filter(([, resource]) => resource.Type === type)
    .map(([id]) => id);

/** A stack's own template, read from the app's (cached) cloud assembly: no second synthesis. */
export function templateOf(stack: Stack): Template {
  const assembly = (stack.node.root as App).synth();
  const file =
    stack instanceof NestedStack ? stack.templateFile : assembly.getStackByName(stack.stackName).templateFile;
  return Template.fromJSON(JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')), {
    skipCyclicalDependenciesCheck: true,
  });
}

/** A stack's template and those of its nested stacks, by stack path, the parent first. */
export function templatesOf(stack: Stack): Map<string, Template> {
  const templates = new Map([[stack.node.path, templateOf(stack)]]);
  for (const child of nestedStacksOf(stack)) {
    for (const [path, template] of templatesOf(child)) templates.set(path, template);
  }
  return templates;
}

const nestedStacksOf = (stack: Stack) =>
  stack.node
    .findAll()
    .filter(
      (child): child is NestedStack =>
        child instanceof NestedStack && Stack.of(child.node.scope as IConstruct) === stack,
    );

/** `value` with every `{ Ref: <parameter> }` replaced by what the parent passes for it. */
function substitute(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, parameters));
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: unknown }).Ref;
    if (typeof ref === 'string' && ref in parameters && Object.keys(value).length === 1)
      return parameters[ref];
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, parameters)]));
  }
  return value;
}

/**
 * Every resource of a stack and its nested stacks, by logical id, a nested template's parameters
 * replaced by the parent's values (so a method's `ResourceId` is the parent resource's `Ref`, as
 * in one template). Ids are per template: a construct at the same path within two nested stacks
 * (each route stack's `Releases`) has the same id, the last template's kept here; look such ones
 * up in their own template.
 */
export function allResourcesOf(stack: Stack): Resources {
  const own = resourcesOf(templateOf(stack));
  const merged: Resources = { ...own };
  for (const nested of nestedStacksOf(stack)) {
    const resourceId = stack.getLogicalId(nested.nestedStackResource as CfnElement);
    const parameters = own[resourceId]?.Properties?.Parameters ?? {};
    const inner = substitute(allResourcesOf(nested), parameters) as Resources;
    Object.assign(merged, inner);
  }
  return merged;
}

/** The stack a construct is defined in: the parent or one of its nested stacks. */
export const stackOf = (construct: IConstruct) => Stack.of(construct);
