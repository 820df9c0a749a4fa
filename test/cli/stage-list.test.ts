import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsEndpoint, startAwsEndpoint } from '#local-aws/aws-endpoint.ts';
import { awsEnv, runCli } from '#test/helpers/cli.ts';

/** `npm run stage`: branch → stage without AWS, and `list` through the real CloudFormation client. */
describe('npm run stage', () => {
  let endpoint: AwsEndpoint;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    endpoint = await startAwsEndpoint({
      functions: new Map(),
      stacks: new Map<string, Record<string, string>>([
        ['VoiceAgentAdmin-prod', { ApiUrl: 'https://prod.example' }],
        ['VoiceAgentAdmin-previews', { ClusterEndpoint: 'cluster.example' }],
        ['VoiceAgentAdmin-feature-x', { DatabaseName: 'preview_feature_x' }],
        ['VoiceAgentAdmin-staging', { DatabaseName: 'voice_agent_admin (own cluster)' }],
        ['SomethingElse', {}],
      ]),
    });
    env = awsEnv({
      AWS_ENDPOINT_URL: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDSTANDIN',
      AWS_SECRET_ACCESS_KEY: 'stand-in',
    });
  });
  afterAll(() => endpoint?.close());

  it('names the stage of each branch, never prod or the preview base', async () => {
    const result = await runCli('stage', ['name', 'feature/Add_X', 'prod', 'Previews', 'list'], env);
    expect(result).toMatchObject({ code: 0, stdout: 'feature-add-x\nlist\n' });
  });

  it('lists every preview with its age, idle days and database, and not prod, the base or other stacks', async () => {
    const result = await runCli('stage', ['list'], env);
    expect(result.code).toBe(0);
    // The stand-in says every stack was created on 2026-01-01 and never updated.
    const days = Math.floor((Date.now() - Date.parse('2026-01-01T00:00:00Z')) / 86_400_000);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STAGE\s+AGE\s+IDLE\s+DATABASE\s+STATUS$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['feature-x', `${days}d`, `${days}d`, 'preview_feature_x', 'CREATE_COMPLETE'],
      ['staging', `${days}d`, `${days}d`, 'voice_agent_admin (own cluster)', 'CREATE_COMPLETE'],
    ]);
  });

  it('prints only the stages idle for at least --idle-days, for the reaper', async () => {
    expect((await runCli('stage', ['list', '--idle-days', '1'], env)).stdout).toBe('feature-x\nstaging\n');
    expect((await runCli('stage', ['list', '--idle-days', '100000'], env)).stdout).toBe('');
    const bad = await runCli('stage', ['list', '--idle-days', 'soon'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--idle-days takes a whole number/);
  });
});
