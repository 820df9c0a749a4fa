// Where local calendar days start, by the runtime's time zone data (Intl), for GET /usage's window.

const DAY_MS = 86_400_000;

// Each cache is emptied when full: a zone may be spelt in any case, so the spellings a client can
// send are not few, but no answer depends on what is cached.
const FORMATS_MAX = 1_000;
const STARTS_MAX = 50_000;

/** A formatter per zone and kind: making one costs far more than using it. */
const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(zone: string, kind: 'day' | 'wall'): Intl.DateTimeFormat {
  const key = `${kind} ${zone}`;
  let format = formats.get(key);
  if (!format) {
    if (formats.size >= FORMATS_MAX) formats.clear();
    format =
      kind === 'day'
        ? new Intl.DateTimeFormat('en-CA', {
            timeZone: zone,
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
          })
        : new Intl.DateTimeFormat('en-US', {
            timeZone: zone,
            hourCycle: 'h23',
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
          });
    formats.set(key, format);
  }
  return format;
}

/** The local calendar day of an instant, `YYYY-MM-DD`. */
export const localDay = (ms: number, zone: string): string => formatOf(zone, 'day').format(ms);

/** The zone's offset from UTC at an instant, in milliseconds (whole seconds: local mean times have them). */
function offsetAt(ms: number, zone: string): number {
  const parts = formatOf(zone, 'wall').formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

const starts = new Map<string, number>();

/**
 * The first instant of local day `day` (`YYYY-MM-DD`): its midnight by the offset then, or, where a
 * transition skips or repeats midnight, the instant the day actually begins (found by bisection).
 * Computed once per zone and day in a container: each takes several Intl calls, and a month's
 * report asks for 32.
 */
export function dayStart(day: string, zone: string): number {
  const key = `${zone} ${day}`;
  let start = starts.get(key);
  if (start === undefined) {
    if (starts.size >= STARTS_MAX) starts.clear();
    start = firstInstantOf(day, zone);
    starts.set(key, start);
  }
  return start;
}

function firstInstantOf(day: string, zone: string): number {
  const wall = Date.parse(`${day}T00:00:00.000Z`);
  const guess = wall - offsetAt(wall - offsetAt(wall, zone), zone);
  if (localDay(guess, zone) >= day && localDay(guess - 1, zone) < day) return guess;
  let before = guess - DAY_MS; // still the day before
  let after = guess + DAY_MS; // already the day
  while (after - before > 1) {
    const mid = Math.floor((before + after) / 2);
    if (localDay(mid, zone) >= day) after = mid;
    else before = mid;
  }
  return after;
}

/** The day after `day`, `YYYY-MM-DD`. */
export const nextDay = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString().slice(0, 10);
