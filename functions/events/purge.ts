import { purgeEvents } from '#db/queries/events.ts';
import type { Deps } from '../deps.ts';

/** How much one run of the purge may delete: `batches` statements of at most `batch` events each. */
export interface PurgeLimits {
  batch: number;
  batches: number;
}

/**
 * Each statement a short transaction (its locks held briefly, within the request deadline); 20 a
 * run, once a minute, purge up to 20,000 events a minute, far more than the API writes.
 */
export const PURGE_LIMITS: PurgeLimits = { batch: 1_000, batches: 20 };

/**
 * Deletes the events past the retention window (EVENT_RETENTION_DAYS) that the relay has published,
 * batch after batch, until one comes back short or the run's batches are spent (the next run goes
 * on). Run by the scheduled sweep (functions/sessions/sweep.ts). `more`: a batch came back full.
 */
export async function purgeExpiredEvents(
  deps: Deps,
  limits: PurgeLimits = PURGE_LIMITS,
): Promise<{ purged: number; more: boolean }> {
  let purged = 0;
  for (let batch = 0; batch < limits.batches; batch++) {
    const n = await deps.database.run((sql) => purgeEvents(sql, limits.batch), { repeatable: true });
    purged += n;
    if (n < limits.batch) return { purged, more: false };
  }
  return { purged, more: true };
}
