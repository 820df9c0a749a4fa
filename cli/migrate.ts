import { databaseConfigFromEnv } from '#db/client.ts';
import { migrate } from '#db/migrate.ts';
import { createDatabaseIfMissing } from '#db/open.ts';
import { describeDatabase, parse, run, say, withDatabase } from './common.ts';

const usage = `
Usage: npm run db:migrate

Applies the migrations in db/migrations to the database named by DATABASE_URL,
else to the embedded database under .data/ (PGLITE_DATA_DIR overrides). A database DATABASE_URL
names that does not exist is created first when its user may (CREATEDB); otherwise the message
gives the exact command for someone who may.`;

await run('db:migrate', usage, async () => {
  parse({ options: {} });
  const config = databaseConfigFromEnv();
  if (await createDatabaseIfMissing(config)) say(`Created the ${describeDatabase(config)}.`);
  await withDatabase(async (handle) => {
    await migrate(handle);
    say(`Migrations applied to the ${describeDatabase(handle.config)}.`);
  });
});
