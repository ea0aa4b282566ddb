// The email port's contract, run against both adapters: the outbox folder (real files in a temp
// folder) and SES (the SDK client mocked with aws-sdk-client-mock, which records the command).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EmailMessage, EmailSender } from '#shared/email/email-port.ts';
import { OutboxEmailSender } from '#shared/email/outbox-email.ts';
import { SesEmailSender } from '#shared/email/ses-email.ts';

const FROM = 'Tessera <no-reply@tessera.test>';
const message: EmailMessage = {
  to: 'invitee@example.com',
  subject: 'You are invited to join Acme',
  text: 'Accept: http://console.test/invitations/abc',
  html: '<p><a href="http://console.test/invitations/abc">Accept</a></p>',
};

/** What each adapter delivered, read back the way that adapter can be observed. */
interface Harness {
  name: string;
  sender: () => EmailSender;
  delivered: () => Promise<Array<{ from: string; to: string[]; subject: string; text: string; html?: string }>>;
  reset: () => Promise<void>;
}

let folder: string;
const ses = mockClient(SESv2Client);

const harnesses: Harness[] = [
  {
    name: 'outbox',
    sender: () => new OutboxEmailSender(folder, FROM),
    delivered: async () => {
      const names = (await readdir(folder).catch(() => [] as string[])).sort();
      return Promise.all(
        names.map(async (name) => {
          const mail = JSON.parse(await readFile(path.join(folder, name), 'utf8'));
          return { from: mail.from, to: [mail.to], subject: mail.subject, text: mail.text, html: mail.html };
        }),
      );
    },
    reset: async () => rm(folder, { recursive: true, force: true }),
  },
  {
    name: 'ses',
    sender: () => new SesEmailSender(new SESv2Client({ region: 'eu-west-1' }), FROM),
    delivered: async () =>
      ses.commandCalls(SendEmailCommand).map((call) => {
        const input = call.args[0].input;
        return {
          from: input.FromEmailAddress!,
          to: input.Destination!.ToAddresses!,
          subject: input.Content!.Simple!.Subject!.Data!,
          text: input.Content!.Simple!.Body!.Text!.Data!,
          html: input.Content!.Simple!.Body!.Html?.Data,
        };
      }),
    reset: async () => {
      ses.reset();
      ses.on(SendEmailCommand).resolves({ MessageId: 'message-1' });
    },
  },
];

beforeAll(async () => {
  folder = path.join(await mkdtemp(path.join(tmpdir(), 'tessera-outbox-')), 'outbox');
});
afterAll(async () => {
  ses.restore();
  await rm(path.dirname(folder), { recursive: true, force: true });
});

describe.each(harnesses)('email port: $name adapter', (harness) => {
  beforeAll(() => harness.reset());
  afterEach(() => harness.reset());

  it('delivers one mail with sender, recipient, subject, text and html', async () => {
    await harness.sender().send(message);
    expect(await harness.delivered()).toEqual([
      { from: FROM, to: [message.to], subject: message.subject, text: message.text, html: message.html },
    ]);
  });

  it('delivers a text-only mail without an html part', async () => {
    await harness.sender().send({ to: 'a@example.com', subject: 'Plain', text: 'Only text' });
    const [mail] = await harness.delivered();
    expect(mail).toMatchObject({ to: ['a@example.com'], text: 'Only text' });
    expect(mail!.html).toBeUndefined();
  });

  it('delivers each mail separately', async () => {
    const sender = harness.sender();
    await sender.send({ ...message, to: 'one@example.com' });
    await sender.send({ ...message, to: 'two@example.com' });
    expect((await harness.delivered()).map((mail) => mail.to[0]).sort()).toEqual(['one@example.com', 'two@example.com']);
  });
});

describe('SES adapter failures', () => {
  afterEach(() => ses.reset());

  it('turns an SES refusal into a 503 SERVICE_UNAVAILABLE without the SDK error', async () => {
    ses.on(SendEmailCommand).rejects(new Error('MessageRejected: Email address is not verified'));
    const sending = new SesEmailSender(new SESv2Client({ region: 'eu-west-1' }), FROM).send(message);
    await expect(sending).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    await expect(sending).rejects.not.toThrow(/not verified/);
  });
});
