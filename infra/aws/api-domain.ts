// The API on the platform's own domain: `<PLATFORM_DOMAIN>` for the platform and
// `*.<PLATFORM_DOMAIN>` for tenant hosts (`<site>.<PLATFORM_DOMAIN>`), so requests reach the
// functions with the Host a site is resolved from, as in the dev server. One DNS-validated
// certificate covers both names; alias records in the given hosted zone point them at the API.
// Built only when the domain and its hosted zone are given in context; synth works without them.
import { CfnOutput } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

export interface ApiDomainProps {
  httpApi: HttpApi;
  /** PLATFORM_DOMAIN, e.g. `tessera.example.com`. */
  platformDomain: string;
  /** The Route 53 public hosted zone the domain's records go in (the zone of the domain or a parent). */
  hostedZoneId: string;
  /** The zone's name; defaults to the platform domain (the zone is the domain's own). */
  hostedZoneName?: string;
}

export class ApiDomain extends Construct {
  readonly certificate: Certificate;
  readonly platformHost: DomainName;
  readonly tenantHosts: DomainName;
  readonly mappings: ApiMapping[];

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: props.hostedZoneId,
      zoneName: props.hostedZoneName ?? props.platformDomain,
    });
    const wildcard = `*.${props.platformDomain}`;
    this.certificate = new Certificate(this, 'Certificate', {
      domainName: props.platformDomain,
      subjectAlternativeNames: [wildcard],
      validation: CertificateValidation.fromDns(zone),
    });

    this.platformHost = new DomainName(this, 'PlatformHost', { domainName: props.platformDomain, certificate: this.certificate });
    this.tenantHosts = new DomainName(this, 'TenantHosts', { domainName: wildcard, certificate: this.certificate });
    this.mappings = [];
    for (const [name, domainName, recordName] of [
      ['Platform', this.platformHost, props.platformDomain],
      ['Tenants', this.tenantHosts, wildcard],
    ] as const) {
      this.mappings.push(new ApiMapping(this, `${name}Mapping`, { api: props.httpApi, domainName, stage: props.httpApi.defaultStage }));
      new ARecord(this, `${name}Record`, {
        zone,
        recordName: `${recordName}.`,
        target: RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(domainName.regionalDomainName, domainName.regionalHostedZoneId)),
      });
    }
    new CfnOutput(this, 'PlatformUrl', { value: `https://${props.platformDomain}` });
  }
}
