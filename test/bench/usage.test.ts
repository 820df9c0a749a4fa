import { describe, expect, it } from 'vitest';
import { BENCH_OPTIONS, parseOptions, UsageError, usage } from '../../bench/plan.ts';
import { runScript, STACK_FRAME } from '../helpers/cli.ts';

/** `npm run bench -- <args>` as a user runs it, in a child process, without a database named. */
const bench = (file: 'run' | 'seed-only', args: string[]) =>
  runScript(`bench/${file}.ts`, args, { ...process.env, DATABASE_URL: '', TEST_DATABASE_URL: '' });

describe("the bench's command line", () => {
  it('--help prints every option it parses and exits 0, running nothing', async () => {
    for (const args of [['--help'], ['-h'], ['--quick', '--help']]) {
      const result = await bench('run', args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toBe(usage());
      expect(result.stderr).not.toMatch(/\[bench\]/);
    }
    for (const name of Object.keys(BENCH_OPTIONS)) expect(usage()).toContain(`--${name}`);
  });

  it('an option it does not take, or a bad value, prints what is wrong and the usage, exits 2, no stack trace', async () => {
    for (const [args, says] of [
      [['--nope'], /Unknown option '--nope'/],
      [['--layout', 'wide'], /--layout: split or shared/],
      [['--seconds', 'ten'], /--seconds: a number, not "ten"/],
      [['--only'], /--only/],
    ] as const) {
      const result = await bench('run', [...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(says);
      expect(result.stderr).toContain(usage());
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.stdout).toBe('');
    }
    const seedOnly = await bench('seed-only', ['--nope']);
    expect(seedOnly.code).toBe(2);
    expect(seedOnly.stderr).toContain('Usage: tsx bench/seed-only.ts');
  });

  it('parses the values it documents', () => {
    const options = parseOptions(['--quick', '--seconds', '3', '--layout', 'shared', '--load-nice=-5']);
    expect(options).toMatchObject({ help: false, quick: true, seconds: 3, soakSeconds: 3, layout: 'shared' });
    expect(options.loadNice).toBe(-5);
    expect(() => parseOptions(['--connections', ''])).toThrow(UsageError);
  });
});
