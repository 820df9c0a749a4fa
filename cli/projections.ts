import { writeFileSync } from 'node:fs';
import { itemsModule } from '#db/projections/items.ts';

/** Part of `npm run db:generate`: the items' SQL, rendered from the Drizzle tables (a test fails while it is stale). */
export const ITEMS_PATH = 'db/queries/items.generated.ts';

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(ITEMS_PATH, itemsModule());
  console.log(`wrote ${ITEMS_PATH}`);
}
