import { migrate } from '#db/migrate.ts';
import { describeDatabase, parse, run, say, withDatabase } from './common.ts';

const usage = `
Usage: npm run db:migrate

Applies the migrations in db/migrations to the database named by DATABASE_URL,
else to the embedded database under .data/ (PGLITE_DATA_DIR overrides).`;

await run('db:migrate', usage, async () => {
  parse({ options: {} });
  await withDatabase(async (handle) => {
    await migrate(handle);
    say(`Migrations applied to the ${describeDatabase(handle.config)}.`);
  });
});
