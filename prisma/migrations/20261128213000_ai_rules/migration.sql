-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "aiRules" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "aiRules" JSONB,
ADD COLUMN     "aiRulesExpiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "aiRulesReason" TEXT,
ADD COLUMN     "aiRulesSessionId" UUID,
ADD COLUMN     "aiRulesSetAt" TIMESTAMPTZ(3),
ADD COLUMN     "aiSuccessWhen" JSONB;
