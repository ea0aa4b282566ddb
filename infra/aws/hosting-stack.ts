// Where frontend builds are served when deployed: a private builds bucket behind one CloudFront
// distribution (origin access control, so only CloudFront reads it), with a CloudFront Function
// that maps each host to its active build through a KeyValueStore. With a hosted domain and a
// wildcard certificate (us-east-1) in context, the distribution answers on `*.<hosted domain>`.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  KeyValueStore,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { acknowledgeNag } from './nag-checks.ts';
import { accessLogBucket, PRIVATE_BUCKET } from './private-bucket.ts';
import type { Construct } from 'constructs';
import { edgeHostRouterCode } from './edge-host-router.ts';
import type { DeploySettings } from './settings.ts';

export interface HostingStackProps extends StackProps {
  settings: DeploySettings;
}

export class HostingStack extends Stack {
  readonly builds: Bucket;
  readonly hostMap: KeyValueStore;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: HostingStackProps) {
    super(scope, id, props);
    const accessLogs = accessLogBucket(this, 'AccessLogs');
    this.builds = new Bucket(this, 'Builds', { ...PRIVATE_BUCKET, serverAccessLogsBucket: accessLogs, serverAccessLogsPrefix: 'builds/' });
    this.hostMap = new KeyValueStore(this, 'HostMap', { comment: 'Tessera: host -> active build prefix' });
    const router = new CloudFrontFunction(this, 'HostRouter', {
      runtime: FunctionRuntime.JS_2_0,
      keyValueStore: this.hostMap,
      comment: 'Maps a hosted domain to its active build',
      code: FunctionCode.fromInline(edgeHostRouterCode(this.hostMap.keyValueStoreId)),
    });
    const { hostedDomain, hostedCertificateArn } = props.settings;
    this.distribution = new Distribution(this, 'Sites', {
      comment: 'Tessera hosted frontend builds',
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(hostedDomain !== undefined && hostedCertificateArn !== undefined
        ? {
            domainNames: [`*.${hostedDomain}`],
            certificate: Certificate.fromCertificateArn(this, 'WildcardCertificate', hostedCertificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      enableLogging: true,
      logBucket: accessLogs,
      logFilePrefix: 'sites/',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.builds),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        functionAssociations: [{ function: router, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
    });
    acknowledgeNag(
      this.distribution,
      'AwsSolutions-CFR1',
      'Tenant sites are public websites for any country; a site that needs geo restriction is a per-tenant decision, not a platform default',
    );
    acknowledgeNag(
      this.distribution,
      'AwsSolutions-CFR2',
      'Serves static build files only (GET/HEAD, cached); WAF costs a fixed monthly fee per web ACL and is an operator add-on (README)',
    );
    if (hostedDomain === undefined || hostedCertificateArn === undefined) {
      acknowledgeNag(
        this.distribution,
        'AwsSolutions-CFR4',
        'Without a hosted domain the distribution uses the default *.cloudfront.net certificate, whose TLS policy cannot be set; with one it requires TLS 1.2 (2021)',
      );
    }
    new CfnOutput(this, 'SitesDomain', { value: this.distribution.distributionDomainName });
  }
}
