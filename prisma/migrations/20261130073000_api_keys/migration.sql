-- API keys for authenticated principals. The CHECKs are hand-added: names follow the reviewer
-- rule's length, roles are a non-empty list of known roles, and a key is revoked at most once.
CREATE TABLE "ApiKey" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "roles" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "createdBy" TEXT NOT NULL,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    "revokedBy" TEXT,
    CONSTRAINT "ApiKey_name_check" CHECK (length("name") BETWEEN 1 AND 100),
    CONSTRAINT "ApiKey_roles_check" CHECK (
        "roles" NOT GLOB ',*' AND "roles" NOT GLOB '*,' AND "roles" NOT GLOB '*,,*' AND length("roles") > 0
        AND replace(replace(replace(replace(replace(replace("roles", 'ADMIN', ''), 'PROPOSER', ''), 'REVIEWER', ''), 'EXECUTOR', ''), 'VIEWER', ''), ',', '') = ''
    ),
    CONSTRAINT "ApiKey_hash_check" CHECK (length("keyHash") = 64),
    CONSTRAINT "ApiKey_revoked_check" CHECK (("revokedAt" IS NULL) = ("revokedBy" IS NULL))
);

CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");
CREATE INDEX "ApiKey_name_idx" ON "ApiKey"("name");
