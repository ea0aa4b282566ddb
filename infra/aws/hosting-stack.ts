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
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { PRIVATE_BUCKET } from './private-bucket.ts';
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
    this.builds = new Bucket(this, 'Builds', PRIVATE_BUCKET);
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
          }
        : {}),
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.builds),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        functionAssociations: [{ function: router, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
    });
    new CfnOutput(this, 'SitesDomain', { value: this.distribution.distributionDomainName });
  }
}
