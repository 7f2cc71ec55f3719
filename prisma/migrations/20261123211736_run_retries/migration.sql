-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "retry" JSONB;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "attempts" JSONB;

