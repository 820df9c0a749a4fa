import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  committedQuotaTable,
  DEPLOYING_DOC,
  PRICES,
  type QuotaFigures,
  quotaFigures,
  renderQuotaTable,
} from '#cli/quotas.ts';

describe('the quota and idle-cost table of docs/deploying.md', () => {
  let figures: QuotaFigures;
  beforeAll(() => {
    figures = quotaFigures();
  }, 300_000);

  it('is what the synthesised templates say (npm run docs:quotas rewrites it)', () => {
    expect(committedQuotaTable(readFileSync(DEPLOYING_DOC, 'utf8'))).toBe(renderQuotaTable(figures));
  });

  it('prices a branch preview idle at $1 a month or less: no dashboard, secret, key or web ACL of its own', () => {
    const { preview } = figures;
    expect(preview.idle.total).toBeLessThanOrEqual(1);
    expect(preview.count('AWS::CloudWatch::Dashboard')).toBe(0);
    expect(preview.count('AWS::KMS::Key')).toBe(0);
    expect(preview.count('AWS::WAFv2::WebACL')).toBe(0);
    expect(preview.idle.total).toBeCloseTo(preview.alarms * PRICES.alarm, 5);
  });

  it('names the quota that binds the number of previews an account holds', () => {
    const [binding, ...rest] = figures.capacity;
    for (const other of rest) expect(binding?.previews).toBeLessThanOrEqual(other.previews);
    expect(binding?.previews).toBeGreaterThan(33);
  });
});
