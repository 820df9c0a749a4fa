import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AssetHashType, DockerImage, type Duration, type ILocalBundling, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type ILogGroup, LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type BuildOptions, buildSync } from 'esbuild';
import { repoRoot, type StageConfig } from '../stage.ts';
import type { NetworkPlacement } from './network.ts';

/**
 * Left out of every bundle: the AWS SDK's clients ship with the Lambda runtime, and PGlite (with
 * its WASM) serves only local runs; db/client.ts imports it lazily, so Postgres-only bundles never
 * load it. The database token is signed with node:crypto alone (functions/database-token.ts).
 */
export const EXTERNAL_MODULES = [
  '@aws-sdk/client-*',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  'drizzle-orm/pglite',
  'drizzle-orm/pglite/*',
];

/** The bundle's file name in each zip: CommonJS, which the handler `index.handler` names. */
export const BUNDLE_FILE = 'index.js';
const HANDLER = 'index.handler';

/**
 * How every function is bundled (bench/bundles.ts builds the same). CommonJS: Lambda's runtime
 * `require`s an `index.js`, while an ES module's imports of `tls`, `crypto`, `fs`… each build
 * a namespace of every export (reading `tls.rootCertificates` parses the CA bundle): milliseconds
 * of every cold start (docs/decisions.md). The source map is written without a `sourceMappingURL`
 * comment and outside the asset (see `SOURCE_MAPS_DIR`): nothing at run time reads it (no
 * `--enable-source-maps`, which slows every cold start), and it would be most of each zip.
 */
export const ESBUILD_OPTIONS: Readonly<BuildOptions> = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  // CommonJS has no `import.meta`: the one module that reads it (db/migrate.ts, beside its
  // migrations) gets the bundle's own URL. The banner keeps "use strict" first.
  banner: { js: '"use strict";var importMetaUrl=require("url").pathToFileURL(__filename).href;' },
  define: { 'import.meta.url': 'importMetaUrl' },
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: 'external',
  sourcesContent: false,
  external: EXTERNAL_MODULES,
  logLevel: 'warning',
};

/**
 * Builds one function's bundle with esbuild's API, in this process, when CDK stages its asset.
 * NodejsFunction would start `npx esbuild` once per function, which was most of a synth's time;
 * it would also fall back to Docker without esbuild, where this fails instead. Its fields are
 * part of CDK's asset cache key, so two functions never share a bundle.
 */
class LocalEsbuild implements ILocalBundling {
  constructor(
    readonly entry: string,
    /** Where the source map goes; none is made without one. */
    readonly sourceMapDir: string | undefined,
    readonly after: ((outputDir: string) => void) | undefined,
  ) {}

  tryBundle(outputDir: string): boolean {
    const { outputFiles } = buildSync({
      ...ESBUILD_OPTIONS,
      ...(this.sourceMapDir ? {} : { sourcemap: false }),
      absWorkingDir: repoRoot,
      entryPoints: [join(repoRoot, this.entry)],
      outfile: join(outputDir, BUNDLE_FILE),
      write: false,
    });
    for (const file of outputFiles) {
      const target =
        this.sourceMapDir && file.path.endsWith('.map')
          ? join(this.sourceMapDir, basename(file.path))
          : file.path;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
    this.after?.(outputDir);
    return true;
  }
}

/**
 * A function's code: `entry` (from the repository root) bundled by esbuild, the asset hashed by
 * its output. `after` adds files beside the bundle.
 */
function bundledCode(
  entry: string,
  options: { sourceMapDir?: string; after?: (outputDir: string) => void } = {},
): Code {
  return Code.fromAsset(repoRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type, never pulled: local bundling succeeds or throws.
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: new LocalEsbuild(entry, options.sourceMapDir, options.after),
    },
  });
}

/** A function deployed from `entry`'s `handler` export, on the runtime every function uses. */
export const nodeFunctionProps = (
  entry: string,
  sourceMapDir?: string,
  after?: (outputDir: string) => void,
) => ({
  code: bundledCode(entry, { sourceMapDir, after }),
  handler: HANDLER,
  runtime: Runtime.NODEJS_22_X,
  architecture: Architecture.ARM_64,
});

/**
 * Where each bundle's source map goes, one folder per function's construct path
 * (`.sourcemaps/VoiceAgentAdmin-prod/Functions/CreateAgent/index.js.map`): CI keeps them as a
 * build artifact to decode a minified stack trace from the logs. `SOURCE_MAPS_DIR` overrides.
 */
export const sourceMapsDir = () => process.env.SOURCE_MAPS_DIR ?? join(repoRoot, '.sourcemaps');
export const sourceMapDirOf = (scope: Construct, id: string) => join(sourceMapsDir(), scope.node.path, id);

/**
 * The CloudFormation metadata key naming the module a function is built from: how the IAM tests
 * find each function's row of infra/aws-calls.ts in the synthesized templates.
 */
export const ENTRY_METADATA = 'Entry';

export interface ServiceFunctionProps {
  /** Module (from the repository root) whose `handler` export is deployed. */
  readonly entry: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly config: StageConfig;
  readonly network: NetworkPlacement;
  readonly securityGroup: ISecurityGroup;
  /** Run after esbuild with the bundle's folder, e.g. to copy files beside the bundle. */
  readonly afterBundling?: (outputDir: string) => void;
  /** Reserved concurrency: at most this many instances, each with one database connection. */
  readonly reservedConcurrency?: number;
  /** A role shared with other functions (a branch preview's); default: a role of its own. */
  readonly role?: IRole;
  /** A log group shared with other functions (a branch preview's routes); default: one of its own. */
  readonly logGroup?: ILogGroup;
  /** Where in the VPC; default the isolated subnets (only the webhook delivery function leaves them). */
  readonly subnets?: SubnetSelection;
}

/**
 * Every function the stack deploys is made here, so they all share the runtime, architecture,
 * bundling, logging and network placement.
 */
export function serviceFunction(scope: Construct, id: string, props: ServiceFunctionProps): LambdaFunction {
  const { config, network } = props;
  // An explicit log group, so retention and removal follow the stage without a custom resource.
  const logGroup =
    props.logGroup ??
    new LogGroup(scope, `${id}Logs`, {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
  const fn = new LambdaFunction(scope, id, {
    ...nodeFunctionProps(props.entry, sourceMapDirOf(scope, id), props.afterBundling),
    memorySize: config.functions.memoryMb,
    timeout: props.timeout,
    description: props.description,
    reservedConcurrentExecutions: props.reservedConcurrency,
    role: props.role,
    tracing: Tracing.ACTIVE,
    loggingFormat: LoggingFormat.JSON,
    logGroup,
    vpc: network.vpc,
    vpcSubnets: props.subnets ?? network.isolated,
    securityGroups: [props.securityGroup],
  });
  (fn.node.defaultChild as CfnFunction).addMetadata(ENTRY_METADATA, props.entry);
  Validations.of(fn).acknowledge(
    {
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 on purpose: the version the code is written and tested for (docs/decisions.md)',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'AWS-managed; grants log writes on Resource * (every log group, not only this one): kept as the VPC policy grants the same',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason:
        'ENI create/describe/delete a VPC function needs, plus logs writes, all on Resource *: those EC2 actions take no narrower resource',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing: xray:PutTraceSegments and PutTelemetryRecords accept no resource narrower than *',
    },
  );
  return fn;
}
