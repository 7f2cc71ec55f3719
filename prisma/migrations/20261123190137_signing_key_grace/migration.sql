-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "signingKeyGraceMinutes" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "signing_keys" ADD COLUMN     "previousEncryptedKey" TEXT,
ADD COLUMN     "previousExpiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "previousKeyPrefix" TEXT;

