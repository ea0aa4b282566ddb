// Where object bytes live when deployed: one private S3 bucket, encrypted, reachable over TLS only,
// with CORS for the presigned PUTs and GETs browsers send straight to it from the console origins.
// Keys are chosen by the storage service (site, bucket, object), so one bucket serves every tenant.
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Bucket, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { accessLogBucket, PRIVATE_BUCKET } from './private-bucket.ts';
import type { Construct } from 'constructs';
import { loadConfig } from '#shared/config.ts';
import type { DeploySettings } from './settings.ts';

/** How long overwritten and deleted object bytes stay recoverable: Aurora's backup retention. */
export const OBJECT_VERSION_RETENTION_DAYS = 7;

export interface StorageStackProps extends StackProps {
  settings: DeploySettings;
}

/** The browser origins the API answers (CORS_ORIGINS, with the application's own default). */
export function allowedOrigins(settings: Pick<DeploySettings, 'corsOrigins'>): string[] {
  return loadConfig({ CORS_ORIGINS: settings.corsOrigins }).corsOrigins;
}

export class StorageStack extends Stack {
  readonly objects: Bucket;

  constructor(scope: Construct, id: string, props: StorageStackProps) {
    super(scope, id, props);
    this.objects = new Bucket(this, 'Objects', {
      ...PRIVATE_BUCKET,
      serverAccessLogsBucket: accessLogBucket(this, 'AccessLogs'),
      serverAccessLogsPrefix: 'objects/',
      // Versioned for recovery: an overwritten or deleted object stays as a noncurrent version for
      // as long as Aurora keeps point-in-time recovery (7 days, data-stack.ts), so a database
      // restored to any moment of that window finds its bytes; after that they are gone for good,
      // and a deleted tenant's bytes with them.
      versioned: true,
      cors: [
        {
          allowedMethods: [HttpMethods.PUT, HttpMethods.GET, HttpMethods.HEAD],
          allowedOrigins: allowedOrigins(props.settings),
          // A presigned PUT carries the signed Content-Type; Content-Length is the browser's own.
          allowedHeaders: ['Content-Type'],
          exposedHeaders: ['ETag', 'Content-Length', 'Content-Disposition'],
          maxAge: 3600,
        },
      ],
      lifecycleRules: [
        {
          id: 'AbortIncompleteMultipartUploads',
          // The adapter aborts a refused upload itself; this catches the ones a crash left behind.
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          id: 'ExpireNoncurrentVersions',
          noncurrentVersionExpiration: Duration.days(OBJECT_VERSION_RETENTION_DAYS),
          expiredObjectDeleteMarker: true,
        },
      ],
    });
  }
}
