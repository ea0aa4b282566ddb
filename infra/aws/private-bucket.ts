// What every bucket of tenants' bytes shares (objects, hosted builds): encrypted, owner-enforced, no
// public access, TLS only, unversioned (a delete must remove the bytes), and retained when the stack
// goes (removing users' data is a deliberate act, not a side effect of a stack delete).
import { RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, BucketEncryption, ObjectOwnership, type BucketProps } from 'aws-cdk-lib/aws-s3';

export const PRIVATE_BUCKET: BucketProps = {
  encryption: BucketEncryption.S3_MANAGED,
  blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
  objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  versioned: false,
  removalPolicy: RemovalPolicy.RETAIN,
};
