import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChangeSet, summarise } from '#cli/change-set.ts';
import { repoRoot } from '#infra/stage.ts';

/** The shape `aws cloudformation describe-change-set --output json` prints. */
const changeSet: ChangeSet = {
  StackName: 'VoiceAgentAdmin-prod',
  ChangeSetName: 'release-abc',
  Status: 'CREATE_COMPLETE',
  ExecutionStatus: 'AVAILABLE',
  Changes: [
    {
      ResourceChange: {
        Action: 'Modify',
        LogicalResourceId: 'FunctionsListAgents1234',
        ResourceType: 'AWS::Lambda::Function',
        Replacement: 'False',
      },
    },
    {
      ResourceChange: {
        Action: 'Modify',
        LogicalResourceId: 'DatabaseCluster5B53A178',
        ResourceType: 'AWS::RDS::DBCluster',
        Replacement: 'True',
      },
    },
    {
      ResourceChange: {
        Action: 'Add',
        LogicalResourceId: 'FunctionsRoleDefaultPolicy',
        ResourceType: 'AWS::IAM::Policy',
      },
    },
    {
      ResourceChange: {
        Action: 'Remove',
        LogicalResourceId: 'OldQueue',
        ResourceType: 'AWS::SQS::Queue',
      },
    },
  ],
};

const section = (markdown: string, heading: string) =>
  markdown.split('#### ').find((part) => part.includes(heading)) ?? '';

describe('the change set summary', () => {
  it('lists replacements and removals, and permission changes, apart from the rest', () => {
    const markdown = summarise(changeSet);
    expect(markdown).toContain('### Change set `release-abc` of `VoiceAgentAdmin-prod`');
    const replaced = section(markdown, 'Replacements and removals (2)');
    expect(replaced).toContain('`DatabaseCluster5B53A178`');
    expect(replaced).toContain('`OldQueue`');
    expect(replaced).not.toContain('FunctionsListAgents1234');
    const permissions = section(markdown, 'Permission changes (1)');
    expect(permissions).toContain('`FunctionsRoleDefaultPolicy`');
    expect(permissions).not.toContain('DatabaseCluster');
    expect(section(markdown, 'Every change (4)')).toContain('FunctionsListAgents1234');
  });

  it('warns the reviewer when the stack policy will refuse the change set', () => {
    expect(summarise(changeSet)).toMatch(/CAUTION[\s\S]*`DatabaseCluster5B53A178`[\s\S]*stack policy/);
    const harmless = { ...changeSet, Changes: changeSet.Changes?.slice(0, 1) };
    expect(summarise(harmless)).not.toContain('CAUTION');
    expect(summarise(harmless)).toContain('Replacements and removals (0)');
  });

  it('says so when nothing changes, and renders from stdin as CI calls it', () => {
    expect(summarise({ ...changeSet, Changes: [] })).toContain('No resource changes.');
    const out = execFileSync('npx', ['tsx', join(repoRoot, 'cli', 'change-set.ts'), 'summary'], {
      input: JSON.stringify(changeSet),
      encoding: 'utf8',
    });
    expect(out).toBe(summarise(changeSet));
  });
});
