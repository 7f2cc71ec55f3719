-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "activeFrom" TIMESTAMPTZ(3),
ADD COLUMN     "activeUntil" TIMESTAMPTZ(3),
ADD COLUMN     "blackouts" JSONB;

