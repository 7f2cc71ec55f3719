-- AlterEnum
ALTER TYPE "ChangeOrigin" ADD VALUE 'rule';

-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "ruleChainId" UUID,
ADD COLUMN     "rules" JSONB,
ADD COLUMN     "successWhen" JSONB;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "rulesMatched" TEXT[];

