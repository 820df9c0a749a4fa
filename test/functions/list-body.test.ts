import { describe, expect, it } from 'vitest';
import { listRequest, listResponse } from '#functions/http/pagination.ts';
import { apiEvent } from '#test/helpers/events.ts';

// A list's body is its items' JSON text joined into one array (functions/http/pagination.ts).
describe('a list body joined from JSON text', () => {
  const event = apiEvent({ path: '/sessions', caller: null });
  const item = (n: number) => JSON.stringify({ id: `s${n}`, createdAt: `2026-01-0${n}T00:00:00.000Z`, n });

  it.each([0, 1, 2, 3])('is the JSON array of the page: %i items', (count) => {
    const items = Array.from({ length: count }, (_, i) => item(i + 1));
    const answer = listResponse(
      { event, requestId: 'r' },
      listRequest({ limit: 3, order: 'desc' }, 'sessions', 'w'),
      items,
    );
    expect(JSON.parse(answer.body)).toEqual(items.map((text) => JSON.parse(text)));
  });

  it('leaves out the extra item that says another page follows', () => {
    const items = [1, 2, 3].map(item);
    const answer = listResponse(
      { event, requestId: 'r' },
      listRequest({ limit: 2, order: 'desc' }, 'sessions', 'w'),
      items,
    );
    expect(JSON.parse(answer.body)).toEqual(items.slice(0, 2).map((text) => JSON.parse(text)));
    expect(answer.headers?.link).toContain('offset=2');
  });
});
