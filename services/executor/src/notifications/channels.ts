/**
 * Sends one notification to one channel and says how it went; never throws for a
 * receiver's failure.
 *
 * - webhook: the payload as JSON, signed in the Standard Webhooks format by the `standardwebhooks`
 *   library with the account's signing key (core/signing/standard-webhooks.ts says how a receiver
 *   derives the `whsec_` secret); inside a rotation grace window both keys sign (the format lists
 *   signatures space-separated). webhook-id is the notification id, the same on every retry, so a
 *   receiver deduplicates on it.
 * - slack: an incoming-webhook message, `{ text, blocks }`.
 * - email: a plain-text mail through the SMTP server of KAIROS_SMTP_URL (nodemailer).
 *
 * Webhook and Slack URLs go through the executor's egress guard, as endpoint URLs do: a private
 * address is refused (permanently) unless KAIROS_ALLOW_PRIVATE_TARGETS or the CIDR allowlist opens
 * it; redirects are not followed (a receiver that moved answers 3xx, recorded as a failure).
 */
import http from 'node:http';
import { describeNotification, standardWebhookSecret, toStorableText, type NotificationPayload } from '@kairos/core';
import type { NotificationChannel } from '@kairos/db';
import got, { type Got } from 'got';
import nodemailer, { type Transporter } from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { EgressBlockedError, createEgressGuard, type EgressGuard } from '../http/egress-guard.js';
import { findInCauses } from '../http/transfer-error.js';
import type { EgressPolicy } from '../http/types.js';

/** One attempt: a receiver answering in 10 s is alive; more is a stuck receiver, retried later. */
const SEND_TIMEOUT_MS = 10_000;

export interface SendResult {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  /** A retry cannot succeed (blocked address, no signing key, SMTP not configured, 4xx but 408/429). */
  permanent: boolean;
}

export interface SmtpSettings {
  url: string;
  from: string;
}

export interface ChannelSenderOptions {
  egress: EgressPolicy;
  smtp: SmtpSettings | null;
  userAgent: string;
  /**
   * Told of every receiver address the egress guard refused, with what the notification's error leaves
   * out (the address a host name resolved to, its range: egress-guard.ts): the worker logs it.
   */
  onBlocked?: (refusal: { notificationId: string; hostname: string; address: string; range: string }) => void;
}

export interface OutgoingNotification {
  id: string;
  payload: NotificationPayload;
  /** Raw signing keys, current first (the previous one only inside a rotation grace window). */
  signingKeys: string[];
  at: Date;
}

export class ChannelSender {
  private readonly guard: EgressGuard;
  private readonly client: Got;
  private readonly mailer: Transporter | null;

  constructor(private readonly options: ChannelSenderOptions) {
    this.guard = createEgressGuard(options.egress);
    this.client = got.extend({
      dnsLookup: this.guard.lookup,
      throwHttpErrors: false,
      retry: { limit: 0 },
      followRedirect: false,
      timeout: { request: SEND_TIMEOUT_MS },
      enableUnixSockets: false,
    });
    this.mailer = options.smtp ? nodemailer.createTransport(options.smtp.url) : null;
  }

  async send(channel: NotificationChannel, notification: OutgoingNotification): Promise<SendResult> {
    switch (channel.type) {
      case 'webhook':
        return this.sendWebhook(channel.url ?? '', notification);
      case 'slack':
        return this.post(channel.url ?? '', slackMessage(notification.payload), {}, notification.id);
      case 'email':
        // Only the recipients that confirmed (or are the account's verified users): double opt-in.
        if (channel.confirmedRecipients.length === 0) {
          return failure(null, 'no recipient of this email channel has confirmed yet', true);
        }
        return this.sendEmail(channel.confirmedRecipients, notification.payload);
    }
  }

  close(): void {
    this.mailer?.close();
  }

  private async sendWebhook(url: string, notification: OutgoingNotification): Promise<SendResult> {
    if (notification.signingKeys.length === 0) {
      return failure(null, 'the account has no signing key to sign webhook notifications (create one)', true);
    }
    const body = JSON.stringify(notification.payload);
    const signature = notification.signingKeys
      .map((rawKey) => new Webhook(standardWebhookSecret(rawKey)).sign(notification.id, notification.at, body))
      .join(' ');
    return this.post(
      url,
      body,
      {
        'webhook-id': notification.id,
        'webhook-timestamp': String(Math.floor(notification.at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      notification.id,
    );
  }

  private async post(
    rawUrl: string,
    body: string,
    headers: Record<string, string>,
    notificationId: string,
  ): Promise<SendResult> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return failure(null, `invalid URL: ${rawUrl}`, true);
    }
    const refusal = this.guard.checkUrl(url);
    if (refusal) return this.blocked(refusal, notificationId);
    try {
      const response = await this.client.post(url, {
        body,
        headers: { 'content-type': 'application/json', 'user-agent': this.options.userAgent, ...headers },
      });
      const code = response.statusCode;
      if (code >= 200 && code < 300) return { ok: true, responseCode: code, error: null, permanent: false };
      const retryable = code >= 500 || code === 408 || code === 429;
      return failure(code, `HTTP ${code} ${http.STATUS_CODES[code] ?? ''}`.trim(), !retryable);
    } catch (error) {
      // The guard's refusal inside the DNS lookup (a host name resolving to a private address).
      const refused = findInCauses(error, EgressBlockedError);
      if (refused) return this.blocked(refused, notificationId);
      return failure(null, toStorableText((error as Error).message), false);
    }
  }

  /** A permanent failure saying what the tenant may read (EgressBlockedError.message); the rest is reported. */
  private blocked(refusal: EgressBlockedError, notificationId: string): SendResult {
    const { hostname, address, range } = refusal;
    this.options.onBlocked?.({ notificationId, hostname, address, range });
    return failure(null, refusal.message, true);
  }

  /**
   * The mail asking `recipient` to confirm an email channel (double opt-in): our words only, nothing the
   * tenant wrote (no channel name), so it cannot carry a message of theirs to an address they chose.
   */
  async sendConfirmation(recipient: string, link: string, expiresAt: string): Promise<SendResult> {
    return this.mail({
      to: [recipient],
      subject: '[Kairos] Confirm notifications to this address',
      text:
        `Someone using Kairos asked to send the notifications of an email channel to ${recipient}.\n\n` +
        `To receive them, open this link and confirm (it works until ${expiresAt}):\n\n${link}\n\n` +
        'If you did not expect this mail, ignore it: nothing else is sent to this address from that channel.\n',
    });
  }

  /** An invitation to join an account: the one-time link, the role, who invited and until when. */
  async sendInvitation(
    recipient: string,
    link: string,
    invitation: { role: string; invitedBy: string | null; expiresAt: string },
  ): Promise<SendResult> {
    const by = invitation.invitedBy ? `${invitation.invitedBy} invited you` : 'You are invited';
    return this.mail({
      to: [recipient],
      subject: '[Kairos] You are invited to join an account',
      text:
        `${by} to join their Kairos account as ${invitation.role}.\n\n` +
        `Sign in with this address, then open this link to accept (it works once, until ${invitation.expiresAt}):\n\n${link}\n\n` +
        'If you did not expect this mail, ignore it: nothing happens unless the link is opened by a signed-in user.\n',
    });
  }

  private async sendEmail(recipients: string[], payload: NotificationPayload): Promise<SendResult> {
    const line = describeNotification(payload);
    return this.mail({
      to: recipients,
      subject: `[Kairos] ${payload.type}: ${line}`.slice(0, 200),
      text: `${line}\n\n${JSON.stringify(payload, null, 2)}\n`,
    });
  }

  private async mail(message: { to: string[]; subject: string; text: string }): Promise<SendResult> {
    if (!this.mailer || !this.options.smtp) {
      return failure(null, 'email is not configured on the executor (KAIROS_SMTP_URL)', true);
    }
    try {
      await this.mailer.sendMail({ from: this.options.smtp.from, ...message });
      return { ok: true, responseCode: null, error: null, permanent: false };
    } catch (error) {
      const responseCode = (error as { responseCode?: number }).responseCode ?? null;
      // SMTP 5xx is a permanent refusal (bad recipient), 4xx and connection errors are transient.
      return failure(
        responseCode,
        toStorableText((error as Error).message),
        responseCode !== null && responseCode >= 500,
      );
    }
  }
}

function failure(responseCode: number | null, error: string, permanent: boolean): SendResult {
  return { ok: false, responseCode, error, permanent };
}

/** Slack's incoming-webhook format: `text` (the fallback and notification line) and Block Kit blocks. */
export function slackMessage(payload: NotificationPayload): string {
  const line = describeNotification(payload);
  return JSON.stringify({
    text: line,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: line } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${payload.type} · ${payload.timestamp}` }] },
    ],
  });
}
