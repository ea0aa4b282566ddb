// What a Lambda bundle carries in place of the AWS SDK's default credential chain
// (`@aws-sdk/credential-provider-node`, swapped for this file by `buildLambdaBundle`). Lambda hands
// a function its role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN, which the chain reads first; its other sources (shared config files, SSO, web
// identity, a credential process, instance metadata) are never reached there, yet they and the STS
// and SSO clients they build are some 80 KB of every bundle with an SDK client. The dev server and
// tests run the SDK unbundled, with the whole chain.
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Named as the chain's export, which every client's runtime config imports. */
export function defaultProvider(init?: Parameters<typeof fromEnv>[0]): ReturnType<typeof fromEnv> {
  return fromEnv(init);
}
