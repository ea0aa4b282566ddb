// The few parts of oidc-provider (which ships no types) that the loopback issuer of the sign-in tests uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  interface InteractionDetails {
    uid: string;
    params: Record<string, unknown>;
  }

  class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: Record<string, unknown>,
    ): Promise<void>;
    Grant: new (properties: {
      accountId: string;
      clientId: string;
    }) => Grant;
  }

  export default Provider;
}
