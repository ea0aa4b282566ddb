import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '#shared/config.ts';
import { createEmailSender } from '#shared/email/email-sender.ts';
import { OutboxEmailSender } from '#shared/email/outbox-email.ts';
import { SesEmailSender } from '#shared/email/ses-email.ts';

describe('email adapter choice', () => {
  it('uses the outbox under DATA_DIR by default', async () => {
    const sender = await createEmailSender(loadConfig({ DATA_DIR: '/tmp/tessera-data' }));
    expect(sender).toBeInstanceOf(OutboxEmailSender);
    expect((sender as OutboxEmailSender).folder).toBe(path.join('/tmp/tessera-data', 'outbox'));
  });

  it('uses SES when EMAIL_TRANSPORT is ses', async () => {
    const sender = await createEmailSender(loadConfig({ EMAIL_TRANSPORT: 'ses' }));
    expect(sender).toBeInstanceOf(SesEmailSender);
  });
});
