import { EVENT_RETENTION_DAYS, SESSION_STALE_AFTER_SECONDS } from '#contract/limits.ts';
import { silentLogger } from '#functions/http/log.ts';
import { build } from '#functions/sessions/sweep.ts';
import { describeDatabase, parse, run, say, withDatabase } from './common.ts';
import { callServer, throughServer } from './local-server.ts';

const usage = `
Usage: npm run sessions:sweep

Runs the scheduled housekeeping once, as the scheduled function does in AWS: completes every session
without a heartbeat for ${SESSION_STALE_AFTER_SECONDS} s (never started: since created), then purges the events older than
${EVENT_RETENTION_DAYS} days that the relay has published (a bounded batch; run it again for more). On the
database named by DATABASE_URL, else the embedded one under .data/ (through npm start while it runs).`;

await run('sessions:sweep', usage, async () => {
  parse({ options: {} });
  const report = ({ swept, purged }: { swept: number; purged: number }, where: string) =>
    say(
      `Completed ${swept} stale session(s) and purged ${purged} published event(s) older than ${EVENT_RETENTION_DAYS} days in the ${where}.`,
    );
  await withDatabase(
    async (handle) =>
      report(await build({ database: handle, logger: silentLogger })(), describeDatabase(handle.config)),
    // `npm start` holds the embedded database: the same sweep, run in its process.
    async (server) =>
      report(
        (await callServer(server, '/sweep')) as { swept: number; purged: number },
        throughServer(server),
      ),
  );
});
