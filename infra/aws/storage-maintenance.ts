// The storage maintenance sweep deployed: its Lambda (functions/storage/maintenance) and the
// EventBridge rule that runs it every hour. It purges deleted sites' bytes from the objects and
// builds buckets and their hosts from the edge's KeyValueStore, sweeps abandoned presigned uploads,
// queued discards and bytes no record points at, so it may list and delete in both buckets, write
// that one KeyValueStore, and nothing else.
import { Duration } from 'aws-cdk-lib';
import { SubnetType, type IVpc } from 'aws-cdk-lib/aws-ec2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKeyValueStore } from 'aws-cdk-lib/aws-cloudfront';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeNagPattern, bucketKeysWildcard } from './nag-checks.ts';
import type { DeploySettings } from './settings.ts';
import { TesseraFunction, type DatabaseAccess } from './tessera-function.ts';

export interface StorageMaintenanceProps {
  vpc: IVpc;
  database: DatabaseAccess;
  settings: DeploySettings;
  objects: IBucket;
  builds: IBucket;
  /** The edge's host → build map: a deleted site's hosts are removed from it. */
  hostMap: IKeyValueStore;
}

export class StorageMaintenance extends Construct {
  readonly sweepFunction: TesseraFunction;

  constructor(scope: Construct, id: string, props: StorageMaintenanceProps) {
    super(scope, id);
    this.sweepFunction = new TesseraFunction(this, 'SweepFunction', {
      entry: 'functions/storage/maintenance/maintenance-handler.ts',
      serviceName: 'tessera-storage-maintenance',
      logLevel: props.settings.logLevel,
      description: 'Tessera storage maintenance: deleted sites, abandoned uploads, queued discards, orphaned bytes',
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      // Not an API budget: a large purge lists and deletes a thousand keys per call.
      timeout: Duration.minutes(15),
    })
      .bindDatabase(props.database)
      .bindObjectStore(props.objects);
    // The builds bucket only to list and delete a deleted site's builds: not the hosting function's
    // whole binding (writes, the edge host map).
    this.sweepFunction.addEnvironment('HOSTING_BUCKET', props.builds.bucketName);
    this.sweepFunction.addToRolePolicy(new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [props.builds.arnForObjects('*')] }));
    acknowledgeNagPattern(
      this,
      bucketKeysWildcard(props.builds),
      "A deleted site's builds live under keys only known at run time (<site uuid>/...): the sweep may delete any key of the one builds bucket, and only delete.",
    );
    this.sweepFunction.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.objects.bucketArn, props.builds.bucketArn] }),
    );
    // A deleted site's hosts: the registry is read again before each write, so a host another site
    // claimed since is written back (PutKey), never removed under it (shared/hosting/kvs-host-mappings.ts).
    this.sweepFunction.addEnvironment('HOSTING_KVS_ARN', props.hostMap.keyValueStoreArn);
    this.sweepFunction.addToRolePolicy(
      new PolicyStatement({
        actions: [
          'cloudfront-keyvaluestore:DescribeKeyValueStore',
          'cloudfront-keyvaluestore:PutKey',
          'cloudfront-keyvaluestore:DeleteKey',
        ],
        resources: [props.hostMap.keyValueStoreArn],
      }),
    );
    new Rule(this, 'Schedule', {
      description: 'Runs the storage maintenance sweep',
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(this.sweepFunction, { retryAttempts: 2 })],
    });
  }
}
