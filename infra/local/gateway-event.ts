// Builds the API Gateway HTTP API (payload v2) event and Lambda context a deployed handler would
// receive, so the dev server, the invoke CLI and tests call handlers exactly as API Gateway does.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface GatewayRequest {
  method: string;
  /** Path with optional query string, e.g. `/api/cloud/users/?page=2`. */
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer | string;
  sourceIp?: string;
  /** Set as `x-forwarded-proto` over anything the client sent, as API Gateway sets it (the dev server: http). */
  forwardedProto?: string;
}

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|xml|javascript)|text\/)/i;

/** The request time as API Gateway gives it, made once a second: every request of that second shares it. */
let clock = { second: Number.NaN, text: '' };

function requestTime(nowMs: number): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== clock.second) clock = { second, text: new Date(second * 1000).toUTCString() };
  return clock.text;
}

export function gatewayEvent(request: GatewayRequest): APIGatewayProxyEventV2 {
  const queryAt = request.url.indexOf('?');
  const rawPath = (queryAt < 0 ? request.url : request.url.slice(0, queryAt)) || '/';
  const rawQueryString = queryAt < 0 ? '' : request.url.slice(queryAt + 1);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const given = request.headers ?? {};
  for (const name of Object.keys(given)) {
    const value = given[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (lower === 'cookie') cookies.push(...String(value).split(/;\s*/));
    else headers[lower] = Array.isArray(value) ? value.join(',') : value;
  }
  if (request.forwardedProto !== undefined) headers['x-forwarded-proto'] = request.forwardedProto;
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
  const isText = body === undefined || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const requestId = randomUUID();
  const method = request.method.toUpperCase();
  const sourceIp = request.sourceIp ?? '127.0.0.1';
  const host = headers.host ?? 'localhost';
  const now = Date.now();
  // As API Gateway does: a repeated name's values joined with commas.
  const queryStringParameters: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[key] = Object.hasOwn(queryStringParameters, key) ? `${queryStringParameters[key]},${value}` : value;
  }
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    cookies: cookies.length > 0 ? cookies : undefined,
    headers,
    queryStringParameters: rawQueryString === '' ? undefined : queryStringParameters,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: host.split(':')[0]!,
      domainPrefix: host.split('.')[0]!,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now,
    },
    body: body === undefined || body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body !== undefined && body.length > 0 && !isText,
  };
}

/** The legacy callbacks of a Lambda context, which handlers here never call. */
function ignore(): void {}

export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: ignore,
    fail: ignore,
    succeed: ignore,
  };
}
