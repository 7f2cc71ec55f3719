-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "jitterMs" INTEGER NOT NULL DEFAULT 0;

