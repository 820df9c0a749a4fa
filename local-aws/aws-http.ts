/** A request to a local AWS stand-in and its answer, apart from the server that carries them. */
export interface AwsRequest {
  method: string;
  path: string;
  /** The query string, without its `?`. */
  query?: string;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export interface AwsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Text for an XML answer (the awsQuery protocol of CloudFormation and RDS). */
export const escapeXml = (text: string) =>
  text.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
