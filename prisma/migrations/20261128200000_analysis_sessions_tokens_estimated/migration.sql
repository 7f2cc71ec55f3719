-- AlterTable
ALTER TABLE "analysis_sessions" ADD COLUMN     "tokensEstimated" BOOLEAN NOT NULL DEFAULT false;

