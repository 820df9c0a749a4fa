/**
 * The per-version metrics a route function writes with each answer, in CloudWatch's embedded
 * metric format (one `_aws` block on the `request` log line, no API call): the 5xx answers and
 * the latency of exactly the version that answered, which a release's rollback alarms watch
 * (infra/constructs/releases.ts). Lambda's own Errors stay 0 when a handler answers 500.
 */
export const RELEASE_METRICS = {
  namespace: 'VoiceAgentAdmin/Releases',
  serverErrors: 'ServerErrors',
  latency: 'Latency',
  /** Lambda's names for the function and the version that ran (its environment says both). */
  dimensions: ['FunctionName', 'Version'],
} as const;

const NONE = Object.freeze({});

/**
 * The fields that make a log line an EMF record, for the function and version `env` names (read
 * once, when a route is built: they do not change within a container); none outside Lambda.
 */
export function releaseMetrics(
  env: NodeJS.ProcessEnv = process.env,
): (status: number, ms: number) => Record<string, unknown> {
  const functionName = env.AWS_LAMBDA_FUNCTION_NAME;
  const version = env.AWS_LAMBDA_FUNCTION_VERSION;
  if (!functionName || !version) return () => NONE;
  const { namespace, serverErrors, latency, dimensions } = RELEASE_METRICS;
  return (status, ms) => ({
    FunctionName: functionName,
    Version: version,
    [serverErrors]: status >= 500 ? 1 : 0,
    [latency]: ms,
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [[...dimensions]],
          Metrics: [
            { Name: serverErrors, Unit: 'Count' },
            { Name: latency, Unit: 'Milliseconds' },
          ],
        },
      ],
    },
  });
}
