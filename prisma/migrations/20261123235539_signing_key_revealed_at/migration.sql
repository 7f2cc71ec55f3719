-- AlterTable
ALTER TABLE "signing_keys" ADD COLUMN     "revealedAt" TIMESTAMPTZ(3);


-- Keys that exist before this migration count as shown: the operator CLI printed some of them and
-- which ones cannot be told apart, so none is shown again (a rotation issues a new one).
UPDATE "signing_keys" SET "revealedAt" = COALESCE("rotatedAt", "createdAt");
