import { DomainName, EndpointType, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';
import type { CustomDomainSettings } from '../stage.ts';
import { API_STAGE_NAME, type Api } from './api.ts';

/**
 * The API on a domain of the operator's (`-c domainName=… -c certificateArn=…`): a regional API
 * Gateway domain name, TLS 1.2 at least, whose base path `v1` maps to the stage, so that paths
 * keep the shape they have on the `execute-api` domain (`/v1/agents`) and a later API could take
 * another base path. The DNS record (an alias to `regionalDomainName`) is the operator's: the
 * domain's zone may live in another account or outside Route 53.
 */
export class CustomDomain extends Construct {
  readonly domainName: DomainName;
  /** `https://<domain>/v1/`, what clients call. */
  readonly url: string;

  constructor(scope: Construct, id: string, { domain, api }: { domain: CustomDomainSettings; api: Api }) {
    super(scope, id);
    this.domainName = new DomainName(this, 'DomainName', {
      domainName: domain.name,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    this.domainName.addBasePathMapping(api.restApi, { basePath: API_STAGE_NAME, stage: api.stage });
    this.url = `https://${domain.name}/${API_STAGE_NAME}/`;
    // RestApi's own output names the execute-api URL, which answers nothing once disabled.
    api.restApi.node.tryRemoveChild('Endpoint');
  }
}
