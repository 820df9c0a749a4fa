import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '#infra/stage.ts';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  env?: Record<string, string>;
  needs?: string | string[];
  environment?: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  services?: Record<string, { image: string; ports?: string[] }>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  jobs: Record<string, Job>;
}

const workflow = (name: string): Workflow =>
  parse(readFileSync(join(repoRoot, '.github', 'workflows', name), 'utf8'));
const deploy = workflow('deploy.yml');
const reaper = workflow('reap-previews.yml');
const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts;

/** A GitHub Actions expression as written in the YAML: `${{ … }}`. */
const expression = (inner: string) => `\${{ ${inner} }}`;
const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');
const indexOfRun = (job: Job, text: string) => job.steps.findIndex((s) => s.run?.includes(text));
const roleOf = (job: Job) =>
  job.steps.find((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials'))?.with?.[
    'role-to-assume'
  ];

describe('the deploy workflow', () => {
  it('grants nothing by default, and an OIDC token only to the jobs that deploy', () => {
    expect(deploy.permissions).toEqual({});
    for (const [name, job] of Object.entries(deploy.jobs)) {
      const deploys = Boolean(roleOf(job));
      expect(job.permissions?.['id-token'], name).toBe(deploys ? 'write' : undefined);
      expect(job.permissions?.contents, name).toBe('read');
    }
  });

  it('tests with .ci/run, on a Postgres service at the address it names, before any deploy', () => {
    const test = deploy.jobs.test as Job;
    expect(test.steps.map((s) => s.run)).toContain('bash .ci/run');
    expect(test.services?.postgres?.ports).toEqual(['5432:5432']);
    expect(deploy.jobs.preview?.needs).toBe('test');
    expect(deploy.jobs['prod-plan']?.needs).toBe('test');
  });

  it('deploys prod only from main: a change set prepared, then approved, then executed', () => {
    const plan = deploy.jobs['prod-plan'] as Job;
    const prod = deploy.jobs.prod as Job;
    expect(plan.if).toBe("github.ref == 'refs/heads/main'");
    expect(prod.if).toContain("github.ref == 'refs/heads/main'");
    // The plan job has no reviewers' gate and a role that cannot execute; the gate is on the second job.
    expect(roleOf(plan)).toBe(expression('vars.AWS_PROD_PLAN_ROLE_ARN'));
    expect(roleOf(prod)).toBe(expression('vars.AWS_PROD_ROLE_ARN'));
    expect(prod.needs).toBe('prod-plan');
    // The plan prepares, never executes; the approved job executes the very change set it named.
    const prepare = indexOfRun(plan, '--method=prepare-change-set');
    expect(prepare).toBeGreaterThanOrEqual(0);
    expect(runs(plan)).not.toMatch(/execute-change-set|--method=direct|--method=change-set/);
    expect((plan as { outputs?: Record<string, string> }).outputs?.['change-set']).toBe(
      expression(`steps.${plan.steps[prepare]?.id}.outputs.change-set`),
    );
    expect((prod as { env?: Record<string, string> }).env?.CHANGE_SET).toBe(
      expression('needs.prod-plan.outputs.change-set'),
    );
    const executed = indexOfRun(prod, '--method=execute-change-set --change-set-name "$CHANGE_SET"');
    expect(executed).toBeGreaterThanOrEqual(0);
    expect(runs(prod)).not.toMatch(/prepare-change-set|npm run deploy -- -c stage=prod/);
    // The stack policy is in place before the change set runs; the smoke test after it.
    const policy = indexOfRun(prod, 'set-stack-policy');
    expect(policy).toBeGreaterThanOrEqual(0);
    expect(policy).toBeLessThan(executed);
    expect(indexOfRun(prod, 'npm run smoke -- --stage prod')).toBeGreaterThan(executed);
  });

  it('synthesises prod with the same context in the diff, the change set and its execution', () => {
    const plan = deploy.jobs['prod-plan'] as Job;
    const prod = deploy.jobs.prod as Job;
    const context = [
      '-c stage=prod',
      '-c "alarmEmail=$ALARM_EMAIL"',
      '-c "domainName=$PROD_DOMAIN_NAME"',
      '-c "certificateArn=$PROD_CERTIFICATE_ARN"',
      '-c "backupCopyVaultArn=$BACKUP_COPY_VAULT_ARN"',
    ];
    const commands = [...runs(plan).split('\n'), ...runs(prod).split('\n')].filter((line) =>
      /npm run (--silent )?(diff|deploy) --/.test(line),
    );
    expect(commands).toHaveLength(3);
    for (const command of commands) for (const option of context) expect(command, command).toContain(option);
  });

  it('ships a stack policy that refuses to replace or delete the cluster, the secrets and their key', () => {
    const policy = JSON.parse(readFileSync(join(repoRoot, 'infra', 'stack-policy.json'), 'utf8'));
    const deny = policy.Statement.find((s: { Effect: string }) => s.Effect === 'Deny');
    expect(deny).toMatchObject({ Principal: '*', Resource: '*' });
    expect([deny.Action].flat().sort()).toEqual(['Update:Delete', 'Update:Replace']);
    expect(deny.Condition.StringEquals.ResourceType).toEqual(
      expect.arrayContaining(['AWS::RDS::DBCluster', 'AWS::SecretsManager::Secret']),
    );
    // Without an Allow, a stack policy denies every update.
    expect(policy.Statement).toContainEqual({
      Effect: 'Allow',
      Principal: '*',
      Action: 'Update:*',
      Resource: '*',
    });
  });

  it('deploys every other branch as a preview with the preview role, never prod', () => {
    const preview = deploy.jobs.preview as Job;
    expect(preview.if).toContain("github.ref != 'refs/heads/main'");
    expect(roleOf(preview)).toBe(expression('vars.AWS_PREVIEW_ROLE_ARN'));
    expect(runs(preview)).not.toMatch(/stage=prod/);
  });

  it('deploys the preview base before the branch stack on it, then seeds and smoke-tests the preview', () => {
    const preview = deploy.jobs.preview as Job;
    const base = indexOfRun(preview, 'npm run deploy -- -c stage=previews');
    const branch = indexOfRun(preview, 'npm run deploy -- -c "stage=$STAGE"');
    const seed = indexOfRun(preview, 'npm run --silent db:seed -- --stage "$STAGE"');
    const smoke = indexOfRun(preview, 'npm run smoke -- --stage "$STAGE" --write');
    expect(base).toBeGreaterThanOrEqual(0);
    expect(branch).toBeGreaterThan(base);
    expect(seed).toBeGreaterThan(branch);
    expect(smoke).toBeGreaterThan(seed);
  });

  it('never cancels a deployment half-way', () => {
    for (const name of ['preview', 'prod', 'prod-plan']) {
      expect(deploy.jobs[name]?.concurrency?.['cancel-in-progress'], name).toBe(false);
    }
  });

  it('runs only npm scripts that exist', () => {
    const jobs = [...Object.values(deploy.jobs), ...Object.values(reaper.jobs)] as Job[];
    const used = [
      ...jobs
        .map(runs)
        .join('\n')
        .matchAll(/npm run (?:--silent )?([\w:-]+)/g),
    ].map((m) => m[1]);
    expect(used).toContain('deploy');
    for (const script of used) expect(scripts, script).toHaveProperty(script as string);
  });
});

describe('the preview reaper', () => {
  const plan = reaper.jobs.plan as Job;
  const reap = reaper.jobs.reap as Job & {
    strategy?: { 'fail-fast'?: boolean; matrix?: { stage?: string } };
  };
  const planScript = plan.steps.find((s) => s.id === 'plan')?.run ?? '';

  it("takes the lock of the stage's deploy job: the same concurrency group key, never cancelled", () => {
    // Both keys are `stack-` and the stage `npm run stage -- name` gives (the reaper's stages are
    // only those it names), never cancelling the one that holds the lock.
    const keyOf = (group: string | undefined) => group?.replace(/\$\{\{[^}]+\}\}/g, '<stage>');
    const deployGroup = deploy.jobs.preview?.concurrency?.group;
    expect(keyOf(reap.concurrency?.group)).toBe(keyOf(deployGroup));
    expect(keyOf(deployGroup)).toContain('<stage>');
    expect(reap.concurrency?.['cancel-in-progress']).toBe(false);
    expect(planScript).toContain('npm run --silent stage -- name');
    expect(deploy.jobs.test?.steps.find((s) => s.id === 'stage')?.run).toContain(
      'npm run --silent stage -- name',
    );
  });

  it("uses the preview role only, deletes the preview's API keys, then destroys it", () => {
    expect(reaper.permissions).toEqual({});
    for (const job of [plan, reap]) expect(roleOf(job)).toBe(expression('vars.AWS_PREVIEW_ROLE_ARN'));
    const teardown = indexOfRun(reap, 'npm run --silent stage -- teardown "$STAGE"');
    const destroy = indexOfRun(reap, 'npm run destroy -- -c "stage=$STAGE"');
    expect(teardown).toBeGreaterThanOrEqual(0);
    expect(destroy).toBeGreaterThan(teardown);
  });

  /**
   * The plan step's script, run by bash with `git`, `aws` and `npm` stand-ins on PATH (the stage
   * names come from the real `npm run stage -- name`): which stages it hands the reap jobs.
   */
  function runPlan(options: { idle: string[]; stacks?: string }) {
    const dir = mkdtempSync(join(tmpdir(), 'vaa-reaper-'));
    const bin = join(dir, 'bin');
    const stub = (name: string, body: string) => {
      writeFileSync(join(dir, name), `#!/usr/bin/env bash\n${body}\n`);
      chmodSync(join(dir, name), 0o755);
    };
    mkdirSync(bin, { recursive: true });
    stub(
      'bin/git',
      'printf "abc\\trefs/heads/main\\nabc\\trefs/heads/feature/Live\\nabc\\trefs/heads/feature/Idle\\n"',
    );
    stub(
      'bin/aws',
      `echo "${options.stacks ?? 'VoiceAgentAdmin-prod VoiceAgentAdmin-previews VoiceAgentAdmin-feature-live VoiceAgentAdmin-feature-idle VoiceAgentAdmin-gone-a VoiceAgentAdmin-gone-b'}"`,
    );
    stub(
      'bin/npm',
      [
        'if [ "$1 $2 $3 $4 $5" = "run --silent stage -- name" ]; then shift 5; exec "$REPO/node_modules/.bin/tsx" "$REPO/cli/stage.ts" name "$@"; fi',
        `if [ "$1 $2 $3 $4 $5" = "run --silent stage -- list" ]; then printf '%s\\n' ${options.idle.join(' ')}; exit 0; fi`,
        'echo "unexpected npm $*" >&2; exit 9',
      ].join('\n'),
    );
    return new Promise<{ code: number; summary: string; output: string }>((resolve) => {
      execFile(
        'bash',
        ['-e', '-o', 'pipefail', '-c', planScript],
        {
          cwd: dir,
          env: {
            PATH: `${bin}:${process.env.PATH}`,
            REPO: repoRoot,
            IDLE_DAYS: '7',
            GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
            GITHUB_OUTPUT: join(dir, 'output'),
          },
        },
        (error) =>
          resolve({
            code: error ? Number(error.code ?? 1) : 0,
            summary: readFileSync(join(dir, 'summary.md'), 'utf8'),
            output: readFileSync(join(dir, 'output'), 'utf8'),
          }),
      );
    });
  }
  const stagesOf = (output: string) => JSON.parse(output.replace(/^stages=/, '')).sort();

  it('hands the reap jobs the previews whose branch is gone and those idle, never prod or the base', async () => {
    const result = await runPlan({ idle: ['feature-idle'] });
    expect(result.code).toBe(0);
    expect(stagesOf(result.output)).toEqual(['feature-idle', 'gone-a', 'gone-b']);
    expect(result.summary).toContain('- destroying `VoiceAgentAdmin-gone-a` (no branch deploys to it)');
    expect(result.summary).toContain('- destroying `VoiceAgentAdmin-feature-idle` (no deploy for 7 days)');
  });

  it('hands them an empty list when nothing is to go, and the reap job then does not run', async () => {
    const result = await runPlan({
      idle: [],
      stacks: 'VoiceAgentAdmin-prod VoiceAgentAdmin-previews VoiceAgentAdmin-feature-live',
    });
    expect(result.code).toBe(0);
    expect(result.output).toBe('stages=[]\n');
    expect(reap.if).toBe("needs.plan.outputs.stages != '[]'");
  });
});
