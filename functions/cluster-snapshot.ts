import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './http/log.ts';

/** Set by the stack (infra/constructs/migrations.ts) where migrations snapshot the cluster first. */
export const SNAPSHOT_CLUSTER_ENV = 'SNAPSHOT_CLUSTER_ID';
export const SNAPSHOT_PREFIX_ENV = 'SNAPSHOT_PREFIX';

/** Waited for at most, so that the migrations keep most of the function's 14 minutes. */
export const SNAPSHOT_WAIT_MS = 5 * 60_000;
const POLL_MS = 15_000;
const IN_PROGRESS = new Set(['creating', 'copying']);

export interface SnapshotSettings {
  /** The cluster's identifier (`DBClusterIdentifier`). */
  readonly clusterId: string;
  /** Lower case: RDS stores identifiers so, and the IAM grant is on `cluster-snapshot:<prefix>*`. */
  readonly prefix: string;
  readonly waitMs?: number;
  readonly pollMs?: number;
}

export function snapshotSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SnapshotSettings | undefined {
  const clusterId = env[SNAPSHOT_CLUSTER_ENV];
  const prefix = env[SNAPSHOT_PREFIX_ENV];
  return clusterId && prefix ? { clusterId, prefix } : undefined;
}

/**
 * `<prefix>-before-<migration tag>-<UTC yyyymmddhhmmss>`: named after the schema release it
 * protects (the newest migration about to run) and when, as RDS allows (letters, digits, single
 * hyphens, a letter first, at most 255 characters).
 */
export function snapshotName(prefix: string, tag: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/\D/g, '');
  const name = `${prefix}-before-${tag}-${stamp}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-');
  return name.length <= 255 ? name : `${name.slice(0, 240)}-${stamp}`.replace(/-{2,}/g, '-');
}

/** The snapshot could not be taken or did not become available: the migrations must not run. */
export class SnapshotFailed extends Error {
  override name = 'SnapshotFailed';
}

export interface SnapshotRequest {
  /** The newest pending migration: the release the snapshot is named after. */
  readonly tag: string;
  /** Milliseconds the invocation has left: waiting stops before the migrations' share. */
  readonly remainingMs: () => number;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** Room left for the migrations themselves (one long statement, a lock retry or two). */
const KEEP_FOR_MIGRATIONS_MS = 6 * 60_000;

/**
 * Takes a manual snapshot of the cluster through the AWS SDK's RDS client (the Lambda runtime
 * carries it: imported here, when a snapshot is due, so the migration bundle loads without it)
 * and waits until it is `available`: at most `waitMs`, and never into the time the migrations
 * need. Any failure is a SnapshotFailed, which fails the deploy before a migration runs.
 */
export async function takeClusterSnapshot(
  settings: SnapshotSettings,
  request: SnapshotRequest,
): Promise<string> {
  const { RDSClient, CreateDBClusterSnapshotCommand, DescribeDBClusterSnapshotsCommand } = await import(
    '@aws-sdk/client-rds'
  );
  const rds = new RDSClient({});
  const { remainingMs, logger, now = () => new Date() } = request;
  const id = snapshotName(settings.prefix, request.tag, now());
  const started = Date.now();
  const deadline = started + (settings.waitMs ?? SNAPSHOT_WAIT_MS);
  const pollMs = settings.pollMs ?? POLL_MS;
  try {
    await rds.send(
      new CreateDBClusterSnapshotCommand({
        DBClusterIdentifier: settings.clusterId,
        DBClusterSnapshotIdentifier: id,
        Tags: [{ Key: 'before-migration', Value: request.tag }],
      }),
    );
    logger('info', 'cluster snapshot requested before migrations', {
      snapshot: id,
      cluster: settings.clusterId,
    });
    for (;;) {
      const { DBClusterSnapshots: found = [] } = await rds.send(
        new DescribeDBClusterSnapshotsCommand({ DBClusterSnapshotIdentifier: id }),
      );
      const status = found[0]?.Status ?? 'missing';
      if (status === 'available') {
        logger('info', 'cluster snapshot available', { snapshot: id, waitedMs: Date.now() - started });
        return id;
      }
      if (!IN_PROGRESS.has(status)) throw new SnapshotFailed(`snapshot ${id} is ${status}`);
      if (Date.now() + pollMs > deadline || remainingMs() - pollMs < KEEP_FOR_MIGRATIONS_MS) {
        throw new SnapshotFailed(
          `snapshot ${id} was still ${status} after ${Math.round((Date.now() - started) / 1000)} s`,
        );
      }
      await sleep(pollMs);
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SnapshotFailed(
      `No migration ran: the cluster snapshot taken before migrations that change existing tables failed (${reason})`,
      { cause: error },
    );
  } finally {
    rds.destroy();
  }
}
