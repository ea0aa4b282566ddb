// The VPC: two availability zones, public subnets that only hold the NAT gateway, and private
// subnets with egress for the database, its proxy and the functions (which call Secrets Manager).
// S3 traffic takes a gateway endpoint instead of the NAT gateway: free, and it stays in AWS.
// A flow log of rejected connections goes to CloudWatch Logs: what an investigation needs (who was
// turned away), at a fraction of the volume of logging every accepted flow.
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { FlowLogDestination, FlowLogTrafficType, GatewayVpcEndpointAwsService, IpAddresses, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface NetworkStackProps extends StackProps {
  /** One NAT gateway is enough until outbound traffic matters; raise for zone-level resilience. */
  natGateways?: number;
}

export class NetworkStack extends Stack {
  readonly vpc: Vpc;

  constructor(scope: Construct, id: string, props: NetworkStackProps = {}) {
    super(scope, id, props);
    this.vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr('10.40.0.0/16'),
      maxAzs: 2,
      natGateways: props.natGateways ?? 1,
      subnetConfiguration: [
        { name: 'Public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'Private', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
      ],
      gatewayEndpoints: { S3: { service: GatewayVpcEndpointAwsService.S3 } },
    });
    const flowLogs = new LogGroup(this, 'FlowLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.vpc.addFlowLog('FlowLog', { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.REJECT });
  }
}
