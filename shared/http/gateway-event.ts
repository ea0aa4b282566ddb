// The API Gateway (HTTP API, payload v2) event a handler receives and the result it gives back, in a
// module that imports nothing of ours: body streams, the pipeline state and the router all name
// these types, and importing them from any of those would close an import cycle.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;
