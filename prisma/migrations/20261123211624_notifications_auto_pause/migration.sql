-- CreateEnum
CREATE TYPE "NotificationChannelType" AS ENUM ('webhook', 'slack', 'email');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "aiTokensQuotaNoticeFor" TIMESTAMPTZ(3),
ADD COLUMN     "autoPauseAfterFailures" INTEGER,
ADD COLUMN     "notifyFailureThreshold" INTEGER NOT NULL DEFAULT 3,
ADD COLUMN     "runsQuotaNoticeFor" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "autoPauseAfterFailures" INTEGER,
ADD COLUMN     "autoPausedAt" TIMESTAMPTZ(3),
ADD COLUMN     "failingSince" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "notification_channels" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" "NotificationChannelType" NOT NULL,
    "url" TEXT,
    "recipients" TEXT[],
    "events" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "channelId" UUID,
    "event" TEXT NOT NULL,
    "endpointId" UUID,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "responseCode" INTEGER,
    "error" TEXT,
    "lastAttemptAt" TIMESTAMPTZ(3),
    "deliveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_channels_accountId_createdAt_idx" ON "notification_channels"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "notifications_accountId_createdAt_idx" ON "notifications"("accountId", "createdAt");

-- CreateIndex
CREATE INDEX "notifications_channelId_idx" ON "notifications"("channelId");

-- AddForeignKey
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "notification_channels"("id") ON DELETE SET NULL ON UPDATE CASCADE;

