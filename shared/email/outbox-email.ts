// Outbox adapter of the email port: every mail becomes one JSON file under DATA_DIR/outbox, so a
// developer (or a test) can open it and follow its links without a mail server.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EmailMessage, EmailSender } from './email-port.ts';

export interface OutboxMail extends EmailMessage {
  id: string;
  from: string;
  sent_at: string;
}

export class OutboxEmailSender implements EmailSender {
  constructor(
    readonly folder: string,
    private readonly from: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(message: EmailMessage): Promise<void> {
    const sentAt = this.now();
    const mail: OutboxMail = {
      id: randomUUID(),
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
      sent_at: sentAt.toISOString(),
    };
    await mkdir(this.folder, { recursive: true });
    // The timestamp first, so a directory listing reads in sending order.
    const name = `${sentAt.toISOString().replace(/[:.]/g, '-')}-${mail.id}.json`;
    await writeFile(path.join(this.folder, name), `${JSON.stringify(mail, null, 2)}\n`, { flag: 'wx' });
  }
}
