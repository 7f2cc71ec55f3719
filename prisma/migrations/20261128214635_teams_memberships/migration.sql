-- CreateEnum
CREATE TYPE "MemberRole" AS ENUM ('owner', 'admin', 'editor', 'viewer');

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "expiresAt" TIMESTAMPTZ(3),
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT 'write';

-- AlterTable
ALTER TABLE "web_sessions" ADD COLUMN     "accountId" UUID;

-- CreateTable
CREATE TABLE "memberships" (
    "userId" UUID NOT NULL,
    "accountId" UUID NOT NULL,
    "role" "MemberRole" NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("userId","accountId")
);

-- CreateIndex
CREATE INDEX "memberships_accountId_idx" ON "memberships"("accountId");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Every existing user becomes the owner of the account it signed up with.
INSERT INTO "memberships" ("userId", "accountId", "role")
SELECT "id", "accountId", 'owner' FROM "users"
ON CONFLICT DO NOTHING;

-- A user created by a replica that predates memberships (during a rolling upgrade) gets its owner
-- membership too; the application inserts it itself (skipping duplicates).
CREATE FUNCTION "memberships_owner_of_new_user"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "memberships" ("userId", "accountId", "role") VALUES (NEW."id", NEW."accountId", 'owner')
  ON CONFLICT DO NOTHING;
  RETURN NEW;
END;
$$;
CREATE TRIGGER "users_owner_membership" AFTER INSERT ON "users"
FOR EACH ROW EXECUTE FUNCTION "memberships_owner_of_new_user"();
