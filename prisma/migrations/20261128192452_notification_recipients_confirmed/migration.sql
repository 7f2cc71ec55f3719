-- AlterTable
ALTER TABLE "notification_channels" ADD COLUMN     "confirmedRecipients" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Email channels created before recipients had to confirm keep sending to every recipient they list:
-- stopping a team's alerts at an upgrade would be worse than what confirmation prevents (an operator
-- can review them: SELECT id, "accountId", recipients FROM notification_channels WHERE type = 'email').
UPDATE "notification_channels" SET "confirmedRecipients" = "recipients" WHERE "type" = 'email';
