/**
 * `npm run docs:quotas`: writes the quota and idle-cost table of docs/deploying.md from the
 * synthesised templates (cli/quotas.ts). test/docs/quota-table.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEPLOYING_DOC, renderQuotaTable, withQuotaTable } from './quotas.ts';

const before = readFileSync(DEPLOYING_DOC, 'utf8');
const after = withQuotaTable(before, renderQuotaTable());
writeFileSync(DEPLOYING_DOC, after);
process.stdout.write(
  after === before
    ? 'docs/deploying.md: quota table unchanged\n'
    : 'docs/deploying.md: quota table written\n',
);
