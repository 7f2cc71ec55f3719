-- CreateIndex
CREATE INDEX "endpoints_accountId_failureCount_idx" ON "endpoints"("accountId", "failureCount");

