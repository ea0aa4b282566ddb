// Reads configuration secrets (database credentials, the token signing key). Deployed, they live in
// AWS Secrets Manager; the SDK client is loaded only when a secret ARN is configured.
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let client: SecretsManagerClient | undefined;

async function secretsManager(): Promise<SecretsManagerClient> {
  if (client === undefined) {
    const { SecretsManagerClient: Client } = await import('@aws-sdk/client-secrets-manager');
    client = new Client({});
  }
  return client;
}

export async function readSecret(secretId: string): Promise<string> {
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const answer = await (await secretsManager()).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (answer.SecretString === undefined) throw new Error(`Secret ${secretId} has no string value`);
  return answer.SecretString;
}

export async function writeSecret(secretId: string, value: string): Promise<void> {
  const { PutSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  await (await secretsManager()).send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
}
