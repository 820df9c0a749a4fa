import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '#cli/openapi.ts';

const run = promisify(execFile);
// No telemetry, no update check: the only network here is the npm registry.
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_COLOR: '1',
};

/** Runs a linter that exits non-zero on findings; its JSON report is on stdout either way. */
async function report(command: string, args: string[]): Promise<string> {
  try {
    return (await run(command, args, { env, maxBuffer: 10_000_000 })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (stdout?.trim()) return stdout;
    throw error;
  }
}

describe('docs/openapi.json under third-party linters', () => {
  it('spectral lint (spectral:oas, .spectral.yaml): no errors, no warnings, no hints', async () => {
    const out = await report('node_modules/.bin/spectral', [
      'lint',
      OPENAPI_PATH,
      '--ruleset',
      '.spectral.yaml',
      '--format',
      'json',
      '--fail-severity',
      'hint',
      '--quiet',
    ]);
    expect(JSON.parse(out.slice(out.indexOf('[')))).toEqual([]);
  }, 60_000);

  it('redocly lint (recommended, redocly.yaml): no errors, no warnings', async () => {
    const out = await report('node_modules/.bin/redocly', ['lint', OPENAPI_PATH, '--format', 'json']);
    const result = JSON.parse(out.slice(out.indexOf('{')));
    expect(result.problems).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
