import { beforeAll, describe, expect, it } from 'vitest';
import { API_STAGE_NAME } from '#infra/constructs/api.ts';
import { stageConfig } from '#infra/stage.ts';
import { idsOfType, logicalId, resourcesOf, type Synthesised, synthesise } from './synth.ts';

const domainName = 'api.example.com';
const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

describe('the API on a custom domain (-c domainName=… -c certificateArn=…)', () => {
  let synth: Synthesised;
  beforeAll(() => {
    synth = synthesise('prod', { domainName, certificateArn });
  });

  it('is a regional domain name with TLS 1.2 and the certificate, its base path v1 mapped to the stage', () => {
    const resources = resourcesOf(synth.template);
    const [domain] = idsOfType(synth.template, 'AWS::ApiGateway::DomainName');
    expect(resources[domain as string]?.Properties).toMatchObject({
      DomainName: domainName,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      RegionalCertificateArn: certificateArn,
      SecurityPolicy: 'TLS_1_2',
    });
    const mappings = idsOfType(synth.template, 'AWS::ApiGateway::BasePathMapping');
    expect(mappings).toHaveLength(1);
    expect(resources[mappings[0] as string]?.Properties).toEqual({
      DomainName: { Ref: domain },
      BasePath: API_STAGE_NAME,
      RestApiId: { Ref: logicalId(synth.stack, synth.stack.api.restApi) },
      Stage: { Ref: logicalId(synth.stack, synth.stack.api.stage) },
    });
  });

  it('disables the execute-api endpoint, so the domain (and its WAF and usage plans) is the only way in', () => {
    const [api] = idsOfType(synth.template, 'AWS::ApiGateway::RestApi');
    expect(resourcesOf(synth.template)[api as string]?.Properties.DisableExecuteApiEndpoint).toBe(true);
  });

  it('outputs the custom URL as ApiUrl, which the smoke tests and CI read, and the target of the DNS record', () => {
    const [domain] = idsOfType(synth.template, 'AWS::ApiGateway::DomainName');
    const outputs = synth.template.toJSON().Outputs;
    expect(outputs.ApiUrl.Value).toBe(`https://${domainName}/${API_STAGE_NAME}/`);
    expect(outputs.ApiDomainTarget.Value).toEqual({ 'Fn::GetAtt': [domain, 'RegionalDomainName'] });
    expect(outputs.ApiDomainHostedZoneId.Value).toEqual({ 'Fn::GetAtt': [domain, 'RegionalHostedZoneId'] });
    // No output names the disabled execute-api address (RestApi's own `Endpoint` output is removed).
    expect(JSON.stringify(outputs)).not.toContain('execute-api');
  });
});

describe('the API without a custom domain', () => {
  it('keeps its execute-api endpoint and URL, with no domain resources or DNS outputs', () => {
    const { template } = synthesise('prod');
    template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 0);
    const [api] = idsOfType(template, 'AWS::ApiGateway::RestApi');
    expect(resourcesOf(template)[api as string]?.Properties.DisableExecuteApiEndpoint).toBeUndefined();
    const outputs = template.toJSON().Outputs;
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('.execute-api.');
    expect(outputs.ApiDomainTarget).toBeUndefined();
    expect(outputs.ApiDomainHostedZoneId).toBeUndefined();
  });

  it('refuses half a domain or a malformed one at synth time', () => {
    const prod = (options: object) => () =>
      stageConfig('prod', { alarmEmail: 'ops@example.com', ...options });
    expect(prod({ domainName })).toThrow(/both -c domainName=<host> and -c certificateArn/);
    expect(prod({ certificateArn })).toThrow(/both -c domainName=<host> and -c certificateArn/);
    expect(prod({ domainName: 'https://api.example.com', certificateArn })).toThrow(/domainName must be/);
    expect(prod({ domainName: 'API.example.com', certificateArn })).toThrow(/domainName must be/);
    expect(prod({ domainName, certificateArn: 'arn:aws:iam::123456789012:role/x' })).toThrow(
      /certificateArn must be an ACM certificate ARN/,
    );
    expect(stageConfig('feature-x', { domainName, certificateArn }).domain).toEqual({
      name: domainName,
      certificateArn,
    });
  });
});
