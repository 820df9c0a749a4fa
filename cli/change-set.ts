/**
 * The prod release's review page: a CloudFormation change set (the JSON of `aws cloudformation
 * describe-change-set`) rendered as Markdown for the job summary, replacements, removals and
 * permission changes first, so the reviewer who approves the `production` environment sees them.
 *   npm run --silent change-set -- summary < change-set.json >> "$GITHUB_STEP_SUMMARY"
 */
import { readFileSync } from 'node:fs';

export interface ResourceChange {
  readonly Action?: string;
  readonly LogicalResourceId?: string;
  readonly ResourceType?: string;
  readonly Replacement?: string;
  readonly Scope?: readonly string[];
}
export interface ChangeSet {
  readonly StackName?: string;
  readonly ChangeSetName?: string;
  readonly Status?: string;
  readonly ExecutionStatus?: string;
  readonly Changes?: readonly { readonly ResourceChange?: ResourceChange }[];
}

/** Types whose change widens or narrows who may do what: a policy, a role, a key policy, an invoke grant. */
const PERMISSION_TYPES = /^AWS::IAM::|^AWS::Lambda::Permission$|^AWS::KMS::Key$|Policy$/;
/** What infra/stack-policy.json refuses to replace or delete: the change set would fail on them. */
export const GUARDED_TYPES = ['AWS::RDS::DBCluster', 'AWS::SecretsManager::Secret', 'AWS::KMS::Key'];

const destructive = (c: ResourceChange) =>
  c.Action === 'Remove' ||
  (c.Action === 'Modify' && (c.Replacement === 'True' || c.Replacement === 'Conditional'));

const row = (c: ResourceChange) =>
  `| ${c.Action ?? ''} | \`${c.LogicalResourceId ?? ''}\` | ${c.ResourceType ?? ''} | ${c.Replacement ?? ''} |`;
const table = (changes: readonly ResourceChange[]) => [
  '| Action | Logical id | Type | Replacement |',
  '| --- | --- | --- | --- |',
  ...changes.map(row),
];

export function summarise(set: ChangeSet): string {
  const changes = (set.Changes ?? []).flatMap((c) => (c.ResourceChange ? [c.ResourceChange] : []));
  const lines = [
    `### Change set \`${set.ChangeSetName ?? '?'}\` of \`${set.StackName ?? '?'}\` (${set.Status ?? '?'}, ${set.ExecutionStatus ?? '?'})`,
    '',
  ];
  if (changes.length === 0) return [...lines, 'No resource changes.', ''].join('\n');
  const replaced = changes.filter(destructive);
  const permissions = changes.filter((c) => PERMISSION_TYPES.test(c.ResourceType ?? ''));
  const guarded = replaced.filter((c) => GUARDED_TYPES.includes(c.ResourceType ?? ''));
  if (guarded.length > 0) {
    lines.push(
      `> [!CAUTION]`,
      `> Replaces or removes ${guarded.map((c) => `\`${c.LogicalResourceId}\``).join(', ')}: the stack policy (infra/stack-policy.json) will refuse this change set. Do not approve; see docs/deploying.md.`,
      '',
    );
  }
  lines.push(`#### :warning: Replacements and removals (${replaced.length})`, '');
  lines.push(...(replaced.length ? table(replaced) : ['None.']), '');
  lines.push(`#### :key: Permission changes (${permissions.length})`, '');
  lines.push(...(permissions.length ? table(permissions) : ['None.']), '');
  lines.push(`#### Every change (${changes.length})`, '', ...table(changes), '');
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv[2] !== 'summary') {
    process.stderr.write('Usage: npm run --silent change-set -- summary < change-set.json\n');
    process.exit(2);
  }
  process.stdout.write(summarise(JSON.parse(readFileSync(0, 'utf8')) as ChangeSet));
}
