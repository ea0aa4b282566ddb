// Amazon SES adapter of the email port (SES v2 SendEmail, simple content). The Lambda's role is
// granted SES only for endpoint groups that declare the 'email' capability.
import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import { ServiceUnavailableError } from '#shared/errors.ts';
import type { EmailMessage, EmailSender } from './email-port.ts';

export class SesEmailSender implements EmailSender {
  constructor(
    private readonly client: SESv2Client,
    private readonly from: string,
  ) {}

  async send(message: EmailMessage): Promise<void> {
    try {
      await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: this.from,
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: {
                Text: { Data: message.text, Charset: 'UTF-8' },
                ...(message.html === undefined ? {} : { Html: { Data: message.html, Charset: 'UTF-8' } }),
              },
            },
          },
        }),
      );
    } catch (error) {
      throw new ServiceUnavailableError('The mail could not be sent; try again later', { cause: error });
    }
  }
}
