-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "propagateTrace" BOOLEAN NOT NULL DEFAULT true;

