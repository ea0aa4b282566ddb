// Picks the email adapter from configuration: the outbox folder under DATA_DIR, or Amazon SES.
import path from 'node:path';
import type { Config } from '#shared/config.ts';
import type { EmailSender } from './email-port.ts';
import { OutboxEmailSender } from './outbox-email.ts';

export function outboxFolder(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'outbox');
}

export async function createEmailSender(config: Pick<Config, 'dataDir' | 'email'>): Promise<EmailSender> {
  if (config.email.transport === 'ses') {
    // Loaded only when chosen: the embedded default never pays for the SDK at start-up. Lambdas of
    // groups that send no mail are bundled with this branch compiled out (capabilityDefines in
    // infra/bundling.ts), and CDK gives them no EMAIL_TRANSPORT to reach it.
    if (process.env.TESSERA_BUNDLE_EMAIL !== 'excluded') {
      const [{ SESv2Client }, { SesEmailSender }] = await Promise.all([import('@aws-sdk/client-sesv2'), import('./ses-email.ts')]);
      return new SesEmailSender(new SESv2Client({}), config.email.from);
    }
    throw new Error('This function was bundled without SES (its group sends no mail)');
  }
  return new OutboxEmailSender(outboxFolder(config), config.email.from);
}
