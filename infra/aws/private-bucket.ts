// What every bucket of tenants' bytes shares (objects, hosted builds): encrypted, owner-enforced, no
// public access, TLS only, unversioned (a delete must remove the bytes), and retained when the stack
// goes (removing users' data is a deliberate act, not a side effect of a stack delete). Each such
// bucket sends S3 server access logs to an access-log bucket of its stack.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type BucketProps } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { acknowledgeNag } from './nag-checks.ts';

export const PRIVATE_BUCKET: BucketProps = {
  encryption: BucketEncryption.S3_MANAGED,
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  versioned: false,
  removalPolicy: RemovalPolicy.RETAIN,
};

/** How long access logs are kept: long enough to look into an incident, short enough to cost little. */
export const ACCESS_LOG_RETENTION = Duration.days(90);

/**
 * A bucket for S3 server access logs (and CloudFront standard logs, which need object ACLs, hence
 * OBJECT_WRITER). Retained with the data buckets it describes; old logs expire.
 */
export function accessLogBucket(scope: Construct, id: string): Bucket {
  const bucket = new Bucket(scope, id, {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.OBJECT_WRITER,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    removalPolicy: RemovalPolicy.RETAIN,
    lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: ACCESS_LOG_RETENTION }],
  });
  acknowledgeNag(bucket, 'AwsSolutions-S1', 'This is the access-log bucket; logging its own access would log the log deliveries');
  return bucket;
}
