-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "key" TEXT;

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "endpoints_jobId_key_key" ON "endpoints"("jobId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_accountId_key_key" ON "jobs"("accountId", "key");

