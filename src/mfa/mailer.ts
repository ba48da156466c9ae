// Sends MFA email through nodemailer: over SMTP when PREDEX_SMTP_URL is set, otherwise through
// nodemailer's JSON transport into an outbox file (one JSON message per line) in the data dir, so
// codes can be read in development and by tests. A failed send is a value, never a throw.

import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import nodemailer from "nodemailer";
import SMTPTransport from "nodemailer/lib/smtp-transport/index.js";

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export type MailResult = { readonly sent: true } | { readonly sent: false; readonly reason: string };

export interface Mailer {
  send(message: MailMessage): Promise<MailResult>;
}

export interface MailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://…`; undefined selects the outbox file. */
  readonly smtpUrl: string | undefined;
  readonly outboxPath: string;
  readonly from: string;
}

/** Gives up on an SMTP server that does not answer, so the request does not hang. */
export const smtpTimeoutMs = 10_000;

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl === undefined
    ? createOutboxMailer(options.outboxPath, options.from)
    : createSmtpMailer(options.smtpUrl, options.from);
}

function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  // The transport is built here because nodemailer drops every other option when given a URL.
  const transport = nodemailer.createTransport(
    new SMTPTransport({
      url: smtpUrl,
      connectionTimeout: smtpTimeoutMs,
      greetingTimeout: smtpTimeoutMs,
      socketTimeout: smtpTimeoutMs,
    }),
  );
  return {
    async send(message) {
      try {
        await transport.sendMail({ from, ...message });
        return { sent: true };
      } catch (error) {
        return { sent: false, reason: (error as Error).message };
      }
    },
  };
}

function createOutboxMailer(outboxPath: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(message) {
      try {
        const info = await transport.sendMail({ from, ...message });
        mkdirSync(dirname(outboxPath), { recursive: true, mode: 0o700 });
        // The message carries a live code: readable by the owner only, like the rest of the data dir.
        appendFileSync(outboxPath, `${info.message}\n`, { mode: 0o600 });
        return { sent: true };
      } catch (error) {
        return { sent: false, reason: (error as Error).message };
      }
    },
  };
}
