-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "responseBodyAltered" BOOLEAN NOT NULL DEFAULT false;

