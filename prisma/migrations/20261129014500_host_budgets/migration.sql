-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "hostLimits" JSONB;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "waitedForHostMs" INTEGER;

