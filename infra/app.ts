/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). One stack per stage, `VoiceAgentAdmin-<stage>`:
 * `-c stage=<name>`, else the git branch. `-c alarmEmail=<address>` subscribes to the alarms.
 */
import { App } from 'aws-cdk-lib';
import { defineApp } from './stack.ts';
import { resolveStage, stageConfig } from './stage.ts';

const app = new App();
const context = (key: string): string | undefined => {
  const value = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
};
defineApp(app, stageConfig(resolveStage(context('stage')), { alarmEmail: context('alarmEmail') }));
