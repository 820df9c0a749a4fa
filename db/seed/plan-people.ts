import { createId } from '@paralleldrive/cuid2';
import type { persons } from '../schema/index.ts';
import { personNames } from './fixtures.ts';
import { iso, MINUTE } from './plan-agents.ts';

const ascii = (s: string) => s.normalize('NFD').replace(/[^A-Za-z-]/g, '');

export type PlannedPerson = ReturnType<typeof planPeople>[number];

/** Contacts with e-mails and E.164 phones (some without either); `seen` collects session times. */
export function planPeople(count: number) {
  return personNames.slice(0, count).map(([first, last, locale], i) => ({
    id: createId(),
    first,
    last,
    locale,
    email: i % 5 === 4 ? null : `${ascii(first)}.${ascii(last)}@example.com`.toLowerCase(),
    // Fictional ranges: 555-0100..0199 (North America), 020 7946 0xxx (UK).
    phone:
      i % 4 === 3
        ? null
        : i % 3 === 2
          ? `+442079460${100 + i}`
          : `+1415555${String(100 + i).padStart(4, '0')}`,
    seen: [] as number[],
  }));
}

/** First and last seen follow their sessions; people never talked to were imported before any. */
export function personRows(
  people: PlannedPerson[],
  workspaceId: string,
  importedAt: number,
): (typeof persons.$inferInsert)[] {
  return people.map((p, i) => {
    const first = p.seen.length ? Math.min(...p.seen) : importedAt - i * MINUTE;
    const last = p.seen.length ? Math.max(...p.seen) : first;
    return {
      id: p.id,
      workspaceId,
      createdAt: iso(first),
      updatedAt: iso(last),
      properties: { firstName: p.first, lastName: p.last, locale: p.locale },
      firstSeenAt: iso(first),
      lastSeenAt: iso(last),
      identifiedAt: p.email ? iso(first + MINUTE) : null,
      email: p.email,
      phone: p.phone,
      rootPersonId: p.id,
    };
  });
}
