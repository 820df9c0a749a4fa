import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GATEWAY_IMPORTS } from '../../bench/child.ts';

/** What a process started as the bench starts its gateways makes of `postgres(url, options)`. */
function optionsInGateway(call: string) {
  const script = `import postgres from 'postgres';
const sql = ${call};
process.stdout.write(JSON.stringify({ idle: sql.options.idle_timeout, max: sql.options.max, statics: typeof postgres.toPascal }));`;
  const out = spawnSync(
    process.execPath,
    [...GATEWAY_IMPORTS.flatMap((module) => ['--import', module]), '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout) as { idle: number; max: number; statics: string };
}

describe("the bench's gateways keep their connections open", () => {
  it('overrides the idle timeout a tree asks for, and nothing else', () => {
    expect(optionsInGateway(`postgres('postgres://u@127.0.0.1:1/x', { idle_timeout: 20, max: 7 })`)).toEqual({
      idle: 0,
      max: 7,
      statics: 'function',
    });
  });

  it('takes the options-only form too', () => {
    expect(
      optionsInGateway(`postgres({ host: '127.0.0.1', port: 1, idle_timeout: 20, max: 3 })`),
    ).toMatchObject({
      idle: 0,
      max: 3,
    });
  });
});
