/**
 * The page an email channel's confirmation link opens (double opt-in, core/signing/recipient-confirmation.ts):
 *
 *   GET  /api/notification-recipients/confirm?channel&recipient&expires&signature → a page with a Confirm button
 *   POST /api/notification-recipients/confirm  (form: the same four fields)         → the recipient is confirmed
 *
 * Opening the link confirms nothing: mail scanners and link previews fetch links; only the button's
 * POST does. Neither needs a session: the signature, which only the mailbox received, is the proof.
 * The page names the address and nothing the tenant wrote (no channel name).
 */
import {
  RECIPIENT_CONFIRMATION_PATH,
  parseRecipientConfirmation,
  verifyRecipientConfirmation,
  type RecipientConfirmation,
} from '@kairos/core';
import { confirmRecipient } from '@kairos/db/system';
import express, { type Request, type Response, type Router } from 'express';
import type { ApiDeps } from '../routes/deps.js';
import { escapeHtml, renderPage } from './pages.js';

const INVALID =
  '<p>This confirmation link is invalid or has expired. Ask whoever added this address to Kairos to add it again: ' +
  'a new link is then sent.</p>';

export function createRecipientConfirmationRouter(deps: Pick<ApiDeps, 'masterKey' | 'db' | 'now'>): Router {
  const router = express.Router();
  router.use(RECIPIENT_CONFIRMATION_PATH, express.urlencoded({ extended: false, limit: '4kb' }));

  /** The link's fields when its signature holds and it has not expired; else answers the invalid page. */
  const checked = (fields: Record<string, unknown>, res: Response): RecipientConfirmation | null => {
    const parsed = parseRecipientConfirmation(fields);
    const verdict = parsed
      ? verifyRecipientConfirmation(deps.masterKey, parsed.confirmation, parsed.signature, deps.now())
      : 'invalid';
    if (parsed && verdict === 'valid') return parsed.confirmation;
    res.status(400).type('html').send(renderPage('Confirmation failed', INVALID));
    return null;
  };

  router.get(RECIPIENT_CONFIRMATION_PATH, (req: Request, res: Response) => {
    const confirmation = checked(req.query, res);
    if (!confirmation) return;
    const hidden = ['channel', 'recipient', 'expires', 'signature']
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(String(req.query[name]))}">`)
      .join('\n');
    res
      .type('html')
      .send(
        renderPage(
          'Receive Kairos notifications',
          `<p>Someone using Kairos asked to send the notifications of an email channel to ` +
            `<strong>${escapeHtml(confirmation.recipient)}</strong>.</p>\n` +
            `<form method="post" action="${RECIPIENT_CONFIRMATION_PATH}">\n${hidden}\n` +
            `<button type="submit">Confirm</button>\n</form>\n` +
            '<p class="muted">If you did not expect this, close this page: nothing else is sent to this address ' +
            'from that channel.</p>',
        ),
      );
  });

  router.post(RECIPIENT_CONFIRMATION_PATH, async (req: Request, res: Response) => {
    const confirmation = checked((req.body ?? {}) as Record<string, unknown>, res);
    if (!confirmation) return;
    if ((await confirmRecipient(deps.db, confirmation.channelId, confirmation.recipient)) === 'unknown') {
      res.status(404).type('html').send(renderPage('Confirmation failed', '<p>This channel no longer exists.</p>'));
      return;
    }
    res
      .type('html')
      .send(
        renderPage(
          'Notifications confirmed',
          `<p>${escapeHtml(confirmation.recipient)} is confirmed and now receives this channel's notifications.</p>`,
        ),
      );
  });

  return router;
}
