-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "missedRuns" TEXT NOT NULL DEFAULT 'latest';

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "replayOf" UUID,
ADD COLUMN     "requestOverrides" JSONB;

