import { writeFileSync } from 'node:fs';
import { itemsModule } from '#db/projections/items.ts';
import { namesModule } from '#db/projections/names.ts';

/** Part of `npm run db:generate`: files rendered from db/schema (`npm run check` fails while one is stale). */
export const GENERATED: Record<string, () => string> = {
  'db/queries/names.generated.ts': namesModule,
  'db/queries/items.generated.ts': itemsModule,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [path, render] of Object.entries(GENERATED)) {
    writeFileSync(path, render());
    console.log(`wrote ${path}`);
  }
}
