-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "sealedHeaders" TEXT;

