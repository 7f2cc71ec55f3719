-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "nextRunId" UUID,
ADD COLUMN     "nextRunSource" TEXT,
ADD COLUMN     "scheduleDirtyAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "endpoints_scheduleDirtyAt_idx" ON "endpoints"("scheduleDirtyAt");

