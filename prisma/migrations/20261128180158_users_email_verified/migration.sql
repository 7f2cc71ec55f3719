-- DropIndex
DROP INDEX "users_email_key";

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "emailVerified" BOOLEAN NOT NULL DEFAULT false;

-- Users without an external identity were created by an operator (kairos accounts create, the local
-- admin): the operator vouches for the address. Users created by a sign-in start unverified, since
-- whether their provider verified the address was not recorded; their next sign-in through a provider
-- that verifies it marks it (services/api/src/auth/sign-in.ts).
UPDATE "users" u SET "emailVerified" = true
 WHERE NOT EXISTS (SELECT 1 FROM "user_identities" i WHERE i."userId" = u.id);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_emailVerified_key" ON "users"("email", "emailVerified");
