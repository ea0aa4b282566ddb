// The email port: what the platform asks of a mail service. Adapters: an outbox folder (embedded
// default, one JSON file per mail) and Amazon SES (deployed); configuration picks one.

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface EmailSender {
  /** Hands the message to the transport; rejects when it could not be accepted for delivery. */
  send(message: EmailMessage): Promise<void>;
}
