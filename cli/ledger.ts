import { refillReasons } from '#contract/enums.ts';
import { withAdmin } from './admin.ts';
import { parse, run, say, UsageError } from './common.ts';

const usage = `
Usage:
  npm run ledger -- credit --workspace <id> --amount <credits> --key <idempotency key>
                          [--reason <${refillReasons.join('|')}>] [--details <text>]
  npm run ledger -- threshold --workspace <id> --threshold <credits>
Each also takes --stage <stage>: run it on that deployed stage, through its admin function.

\`credit\` books a refill (PURCHASE_REFILL unless --reason says otherwise) once per --key: run it
again with the same key and nothing more is booked. \`threshold\` sets the balance at or under
which the workspace's balance.low event fires (docs/api.md, "The ledger").`;

await run('ledger', usage, async () => {
  const { values, positionals } = parse({
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      amount: { type: 'string' },
      key: { type: 'string' },
      reason: { type: 'string' },
      details: { type: 'string' },
      threshold: { type: 'string' },
      stage: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return say(usage.trim());
  const [command, ...rest] = positionals;
  if (command !== 'credit' && command !== 'threshold') {
    throw new UsageError(command ? `unknown command "${command}"` : 'missing command: credit or threshold');
  }
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const workspaceId = values.workspace;
  if (!workspaceId) throw new UsageError(`${command} needs --workspace <id>`);
  const whole = (text: string | undefined, flag: string) => {
    if (text === undefined || !/^-?\d+$/.test(text))
      throw new UsageError(`${command} needs --${flag} <whole number>`);
    return Number(text);
  };

  if (command === 'threshold') {
    const threshold = whole(values.threshold, 'threshold');
    return withAdmin(values.stage, async (admin) => {
      const done = await admin.run({ command: 'ledger.threshold', workspaceId, threshold });
      say(
        `Workspace ${workspaceId} in the ${admin.where}: balance.low at or under ${done.threshold} (balance ${done.balance}).`,
      );
    });
  }
  const amount = whole(values.amount, 'amount');
  if (!values.key)
    throw new UsageError('credit needs --key <idempotency key>: a retry must not credit twice');
  const reason = (values.reason ?? 'PURCHASE_REFILL') as (typeof refillReasons)[number];
  if (!refillReasons.includes(reason))
    throw new UsageError(`--reason must be one of ${refillReasons.join(', ')}`);
  await withAdmin(values.stage, async (admin) => {
    const done = await admin.run({
      command: 'ledger.credit',
      workspaceId,
      amount,
      reason,
      idempotencyKey: values.key as string,
      ...(values.details === undefined ? {} : { reasonDetails: values.details }),
    });
    say(
      done.booked
        ? `Credited ${amount} to workspace ${workspaceId} in the ${admin.where}: entry ${done.entryId}, balance ${done.balance}.`
        : `Key already used: entry ${done.entryId} stands, nothing more booked; balance ${done.balance}.`,
    );
  });
});
