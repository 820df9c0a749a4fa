/**
 * Where an admin command runs: against the database the environment names (DATABASE_URL, else
 * embedded), or with `--stage` through that stage's admin function. Both answer the same results
 * (contract/admin.ts), so the CLIs print the same output either way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as v from 'valibot';
import {
  AdminAnswer,
  AdminCommand,
  type AdminCommandName,
  type AdminResult,
  AdminResults,
} from '#contract/admin.ts';
import { describeIssue } from '#functions/http/validation.ts';
import { CliError, describeDatabase, UsageError, withDatabase } from './common.ts';
import { callServer, throughServer } from './local-server.ts';

type CommandOf<C extends AdminCommandName> = Extract<AdminCommand, { command: C }>;

export interface AdminTarget {
  /** For messages: "embedded database in .data/pglite", "stage prod (function …)". */
  readonly where: string;
  run<C extends AdminCommandName>(command: CommandOf<C>): Promise<AdminResult<C>>;
}

/** How long a stage's database may take to answer (a paused preview resumes in ~15 s). */
const UNAVAILABLE_BUDGET_MS = 90_000;
const RETRY_EVERY_MS = 5_000;

/** The command as the admin function will read it: a usage error here, not a failure there. */
function checked<C extends AdminCommandName>(command: CommandOf<C>): CommandOf<C> {
  const parsed = v.safeParse(AdminCommand, command);
  if (parsed.success) return parsed.output as CommandOf<C>;
  throw new UsageError(
    parsed.issues
      .map((issue) => describeIssue(issue))
      .map((e) => `${e.path} ${e.message}`)
      .join('; '),
  );
}

/** Runs `work` with a target: the stage's admin function when `stage` is given, else the local database. */
export async function withAdmin<T>(
  stage: string | undefined,
  work: (target: AdminTarget) => Promise<T>,
): Promise<T> {
  if (stage === undefined) {
    // Loaded only here: a usage error or `--stage` needs none of the admin function's code.
    const { AdminFailure, execute } = await import('#functions/admin.ts');
    return withDatabase(
      (handle) =>
        work({
          where: describeDatabase(handle.config),
          run: async (command) => {
            try {
              // Seeding is what a local database is for; only a deployed durable stage refuses it.
              const settings = { stage: 'local', demoSeed: true };
              const outcome = await execute(handle, checked(command), settings);
              return outcome.result as AdminResult<typeof command.command>;
            } catch (error) {
              throw error instanceof AdminFailure ? new CliError(error.message) : error;
            }
          },
        }),
      // `npm start` holds the embedded database: the same admin function, run in its process.
      (server) =>
        work(
          answeringTarget(throughServer(server), 'npm start', async (command) =>
            parseAnswer('npm start', await callServer(server, '/admin', command)),
          ),
        ),
    );
  }
  return work((await stageAdmin(stage)).admin);
}

/** An admin function's answer, checked against the contract. */
function parseAnswer(who: string, answer: unknown): AdminAnswer {
  const parsed = v.safeParse(AdminAnswer, answer);
  if (!parsed.success) throw new CliError(`${who} answered something unexpected`);
  return parsed.output as AdminAnswer;
}

/**
 * A target whose commands an admin function answers (`invoke`): its results checked against the
 * contract, its refusals as messages, `unavailable` (a database resuming) retried for a while.
 */
function answeringTarget(
  where: string,
  who: string,
  invoke: (command: AdminCommand) => Promise<AdminAnswer>,
) {
  const target: AdminTarget = {
    where,
    run: async (command) => {
      const valid = checked(command);
      for (const started = Date.now(); ; ) {
        const answer = await invoke(valid);
        if (answer.ok) {
          const result = v.safeParse(AdminResults[valid.command], answer.result);
          if (!result.success) throw new CliError(`${who} answered something unexpected`);
          return result.output as AdminResult<typeof command.command>;
        }
        const { code, message } = answer.error;
        if (code !== 'unavailable' || Date.now() - started > UNAVAILABLE_BUDGET_MS) {
          throw new CliError(`${code === 'invalid-command' ? `${who} refused: ` : ''}${message}`);
        }
        process.stderr.write(`${message}; retrying in ${RETRY_EVERY_MS / 1000} s\n`);
        await sleep(RETRY_EVERY_MS);
      }
    },
  };
  return target;
}

/** A deployed stage's outputs and its admin function as a target. */
export async function stageAdmin(stage: string) {
  if (!stage.trim()) throw new UsageError('--stage needs a stage name');
  // Loaded only here: local commands need neither the AWS SDK nor its start-up time.
  const { adminFunctionOf, invokeAdmin } = await import('./aws-stage.ts');
  const outputs = await adminFunctionOf(stage);
  const name = outputs.adminFunctionName;
  const admin = answeringTarget(
    `stage ${outputs.stage} (admin function ${name})`,
    `the admin function ${name}`,
    (command) => invokeAdmin(name, command),
  );
  return { outputs, admin };
}
