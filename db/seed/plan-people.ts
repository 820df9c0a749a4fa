import { personNames } from './fixtures.ts';

const ascii = (s: string) => s.normalize('NFD').replace(/[^A-Za-z-]/g, '');

export type PlannedPerson = ReturnType<typeof planPeople>[number];

/**
 * Contacts with e-mails and E.164 phones (some without one of them), as a voice runtime names the
 * person of a session (POST /sessions finds or makes each one by them).
 */
export function planPeople(count: number) {
  return personNames.slice(0, count).map(([first, last, locale], i) => ({
    first,
    last,
    email: i % 5 === 4 ? null : `${ascii(first)}.${ascii(last)}@example.com`.toLowerCase(),
    // Fictional ranges: 555-0100..0199 (North America), 020 7946 0xxx (UK).
    phone:
      i % 4 === 3
        ? null
        : i % 3 === 2
          ? `+442079460${100 + i}`
          : `+1415555${String(100 + i).padStart(4, '0')}`,
    properties: { firstName: first, lastName: last, locale },
  }));
}
