/**
 * A stand-in for the two RDS calls the migration function makes before migrations that change
 * existing tables (functions/cluster-snapshot.ts): CreateDBClusterSnapshot and
 * DescribeDBClusterSnapshots, in the awsQuery protocol `@aws-sdk/client-rds` speaks (a
 * form-encoded POST, an XML answer), with RDS's answers for an unknown cluster, a name already
 * taken and an unknown snapshot. A new snapshot is `creating` for its first `describesUntilDone`
 * descriptions, then `finalStatus`. The state is in memory and readable.
 */
import { randomUUID } from 'node:crypto';
import { type AwsAnswer, type AwsRequest, escapeXml } from './aws-http.ts';

export interface LocalClusterSnapshot {
  readonly id: string;
  readonly clusterId: string;
  readonly tags: Readonly<Record<string, string>>;
  status: string;
  describes: number;
}

export interface LocalClusterSnapshots {
  readonly clusters: ReadonlySet<string>;
  readonly snapshots: Map<string, LocalClusterSnapshot>;
  describesUntilDone: number;
  finalStatus: string;
  /** Each call (its action and form) as it arrives, before it is answered: tests look at the database then. */
  onRequest?: (action: string, form: URLSearchParams) => void | Promise<void>;
}

export const localClusterSnapshots = (
  clusters: Iterable<string>,
  options: Partial<Pick<LocalClusterSnapshots, 'describesUntilDone' | 'finalStatus' | 'onRequest'>> = {},
): LocalClusterSnapshots => ({
  clusters: new Set(clusters),
  snapshots: new Map(),
  describesUntilDone: options.describesUntilDone ?? 1,
  finalStatus: options.finalStatus ?? 'available',
  onRequest: options.onRequest,
});

const NS = 'http://rds.amazonaws.com/doc/2014-10-31/';

/** Signed for the `rds` service: the credential scope of its SigV4 Authorization header. */
export const isRdsRequest = (request: AwsRequest) =>
  /Credential=[^/]+\/\d{8}\/[^/]+\/rds\/aws4_request/.test(request.headers.authorization ?? '');

const xml = (status: number, body: string): AwsAnswer => ({
  status,
  headers: { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});

const fault = (status: number, code: string, message: string) =>
  xml(
    status,
    `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code>` +
      `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );

const answer = (action: string, result: string) =>
  xml(
    200,
    `<${action}Response xmlns="${NS}"><${action}Result>${result}</${action}Result>` +
      `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
  );

const snapshotXml = (snapshot: LocalClusterSnapshot) =>
  '<DBClusterSnapshot>' +
  `<DBClusterSnapshotIdentifier>${escapeXml(snapshot.id)}</DBClusterSnapshotIdentifier>` +
  `<DBClusterIdentifier>${escapeXml(snapshot.clusterId)}</DBClusterIdentifier>` +
  `<DBClusterSnapshotArn>arn:aws:rds:local:000000000000:cluster-snapshot:${escapeXml(snapshot.id)}</DBClusterSnapshotArn>` +
  `<Status>${escapeXml(snapshot.status)}</Status><SnapshotType>manual</SnapshotType>` +
  `<PercentProgress>${snapshot.status === 'creating' ? 0 : 100}</PercentProgress><StorageEncrypted>true</StorageEncrypted>` +
  '</DBClusterSnapshot>';

/** `Tags.Tag.1.Key=a&Tags.Tag.1.Value=b…` → `{ a: 'b' }` (the query protocol's flattened list). */
function tagsOf(form: URLSearchParams): Record<string, string> {
  const tags: Record<string, string> = {};
  for (let i = 1; form.has(`Tags.Tag.${i}.Key`); i++) {
    tags[form.get(`Tags.Tag.${i}.Key`) as string] = form.get(`Tags.Tag.${i}.Value`) ?? '';
  }
  return tags;
}

export async function answerRds(request: AwsRequest, state: LocalClusterSnapshots): Promise<AwsAnswer> {
  const form = new URLSearchParams(request.body.toString('utf8'));
  const action = form.get('Action') ?? '';
  await state.onRequest?.(action, form);
  const id = (form.get('DBClusterSnapshotIdentifier') ?? '').toLowerCase();
  if (action === 'CreateDBClusterSnapshot') {
    const clusterId = form.get('DBClusterIdentifier') ?? '';
    if (!state.clusters.has(clusterId)) {
      return fault(404, 'DBClusterNotFoundFault', `DBCluster ${clusterId} not found.`);
    }
    if (state.snapshots.has(id)) {
      return fault(
        400,
        'DBClusterSnapshotAlreadyExistsFault',
        `Cannot create the cluster snapshot because one with the identifier ${id} already exists.`,
      );
    }
    const snapshot = { id, clusterId, tags: tagsOf(form), status: 'creating', describes: 0 };
    state.snapshots.set(id, snapshot);
    return answer(action, snapshotXml(snapshot));
  }
  if (action === 'DescribeDBClusterSnapshots') {
    const snapshot = state.snapshots.get(id);
    if (!snapshot) return fault(404, 'DBClusterSnapshotNotFoundFault', `DBClusterSnapshot ${id} not found.`);
    snapshot.describes++;
    if (snapshot.status === 'creating' && snapshot.describes >= state.describesUntilDone) {
      snapshot.status = state.finalStatus;
    }
    return answer(action, `<DBClusterSnapshots>${snapshotXml(snapshot)}</DBClusterSnapshots>`);
  }
  return fault(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
}
