/**
 * The deploy identity's own CDK app, deployed once per account by an administrator, never by CI:
 *   npm run ci-identity:deploy -- -c githubRepository=<owner/name> -c deployAccount=<preview|prod>
 *     [-c githubOidcProviderArn=<arn of an existing GitHub provider>] [-c bootstrapQualifier=<q>]
 */
import { App } from 'aws-cdk-lib';
import { type DeployAccount, defineCiApp } from './ci-stack.ts';

const app = new App();
const context = (key: string): string | undefined => {
  const value = app.node.tryGetContext(key);
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
};
const repository = context('githubRepository');
if (!repository) throw new Error('Pass the repository allowed to deploy: -c githubRepository=<owner/name>');
const account = context('deployAccount');
if (!account)
  throw new Error('Pass which account this is: -c deployAccount=preview or -c deployAccount=prod');
defineCiApp(app, {
  repository,
  account: account as DeployAccount,
  existingProviderArn: context('githubOidcProviderArn'),
  qualifier: context('bootstrapQualifier'),
});
