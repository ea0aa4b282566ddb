// What an operator watches: the API stage's access log (one JSON line per request, no query
// strings or bodies), and alarms on server errors, latency and dead letters that notify an SNS
// topic (an e-mail subscription when `tessera:alarmEmail` is given in context).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { CfnStage, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeNag } from './nag-checks.ts';

/** Fields of an access log line (HTTP API `$context` variables); the path without its query string. */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  host: '$context.domainName',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  latencyMs: '$context.responseLatency',
  integrationMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  userAgent: '$context.identity.userAgent',
});

/** Alarm thresholds; a 5-minute period throughout. */
export const ALARM_THRESHOLDS = {
  /** 5xx answers in one period: a handful is already a bug or an outage. */
  serverErrors: 5,
  /** p95 of the gateway's latency, ms, over three periods in a row. */
  latencyP95Ms: 3000,
  /** Any message in the POST-event dead-letter queue is a subscriber that failed three times. */
  deadLetters: 1,
} as const;

export interface ObservabilityProps {
  httpApi: HttpApi;
  /** Dead-letter queues whose depth is alarmed. */
  deadLetterQueues: ReadonlyArray<{ name: string; queue: IQueue }>;
  /** Receives the alarms by e-mail (the subscription must be confirmed from the mail). */
  alarmEmail?: string;
}

export class Observability extends Construct {
  readonly accessLogs: LogGroup;
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention: RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.DESTROY });
    const stage = props.httpApi.defaultStage!.node.defaultChild as CfnStage;
    stage.accessLogSettings = { destinationArn: this.accessLogs.logGroupArn, format: ACCESS_LOG_FORMAT };

    this.alarmTopic = new Topic(this, 'Alarms', { displayName: 'Tessera alarms', enforceSSL: true });
    acknowledgeNag(
      this.alarmTopic,
      'AwsSolutions-SNS2',
      'Carries alarm state changes only (no user data); a customer managed key would add a key policy for CloudWatch and a monthly fee for nothing to protect',
    );
    if (props.alarmEmail !== undefined) this.alarmTopic.addSubscription(new EmailSubscription(props.alarmEmail));

    const period = Duration.minutes(5);
    this.addAlarm('ServerErrors', {
      metric: props.httpApi.metricServerError({ period, statistic: 'Sum' }),
      threshold: ALARM_THRESHOLDS.serverErrors,
      evaluationPeriods: 1,
      description: `More than ${ALARM_THRESHOLDS.serverErrors - 1} 5xx answers from the API in 5 minutes`,
    });
    this.addAlarm('Latency', {
      metric: props.httpApi.metricLatency({ period, statistic: 'p95' }),
      threshold: ALARM_THRESHOLDS.latencyP95Ms,
      evaluationPeriods: 3,
      description: `API p95 latency above ${ALARM_THRESHOLDS.latencyP95Ms} ms for 15 minutes`,
    });
    for (const { name, queue } of props.deadLetterQueues) {
      this.addAlarm(`${name}DeadLetters`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        threshold: ALARM_THRESHOLDS.deadLetters,
        evaluationPeriods: 1,
        description: `Messages waiting in the ${name} dead-letter queue`,
      });
    }
  }

  private addAlarm(id: string, options: { metric: IMetric; threshold: number; evaluationPeriods: number; description: string }): void {
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No traffic is not an outage.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    this.alarms.push(alarm);
  }
}
