/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). One stack per stage, `VoiceAgentAdmin-<stage>`:
 * `-c stage=<name>`, else `-c branch=<name>` (what CI passes), else the checked-out git branch.
 * A branch never selects prod. `-c alarmEmail=<address>` subscribes an address to the alarms (prod
 * refuses to synthesise without one; `npm run synth` passes a placeholder for offline checks).
 * `-c alarmHttpsUrl=https://…` also posts the alarms to an HTTPS endpoint (a pager's SNS integration).
 * `-c proxy=true` gives a preview prod's database path (RDS Proxy); the `staging` stage has it too.
 * `-c stage=previews` is the preview base every other branch preview keeps its database on.
 * `-c domainName=api.example.com -c certificateArn=arn:aws:acm:…` puts the API on that domain only.
 * `-c backupCopyVaultArn=arn:aws:backup:…` copies prod's backups to that vault of a backup account.
 * `-c webhooks=true` deploys webhook delivery (a NAT gateway, a queue, a KMS key: docs/deploying.md).
 */
import { App } from 'aws-cdk-lib';
import { defineBaseApp } from './preview-base.ts';
import { defineApp } from './stack.ts';
import { PREVIEW_BASE, resolveStage, stageConfig } from './stage.ts';

const app = new App();
const context = (key: string): string | undefined => {
  const value = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
};
const branch = context('branch');
const stage = resolveStage(context('stage'), branch ? () => branch : undefined);
if (stage === PREVIEW_BASE) defineBaseApp(app);
else
  defineApp(
    app,
    stageConfig(stage, {
      alarmEmail: context('alarmEmail'),
      alarmHttpsUrl: context('alarmHttpsUrl'),
      proxy: context('proxy') === 'true',
      domainName: context('domainName'),
      certificateArn: context('certificateArn'),
      backupCopyVaultArn: context('backupCopyVaultArn'),
      webhooks: context('webhooks') === 'true',
    }),
  );
