-- Two roles more for API keys: RECONCILER (reconcileProposal) and SENSITIVE_READER (reads the parts of proposals
-- PROPOSAL_SENSITIVE_FIELDS names unmasked). SQLite cannot change a CHECK: the table is rebuilt with the same
-- columns, constraints and indexes, only the roles' list longer. No foreign key or trigger refers to it.
CREATE TABLE "new_ApiKey" (
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
        AND replace(replace(replace(replace(replace(replace(replace(replace("roles", 'SENSITIVE_READER', ''), 'RECONCILER', ''), 'ADMIN', ''), 'PROPOSER', ''), 'REVIEWER', ''), 'EXECUTOR', ''), 'VIEWER', ''), ',', '') = ''
    ),
    CONSTRAINT "ApiKey_hash_check" CHECK (length("keyHash") = 64),
    CONSTRAINT "ApiKey_revoked_check" CHECK (("revokedAt" IS NULL) = ("revokedBy" IS NULL))
);
INSERT INTO "new_ApiKey" ("id", "name", "roles", "keyHash", "prefix", "createdAt", "createdBy", "lastUsedAt", "revokedAt", "revokedBy")
    SELECT "id", "name", "roles", "keyHash", "prefix", "createdAt", "createdBy", "lastUsedAt", "revokedAt", "revokedBy" FROM "ApiKey";
DROP TABLE "ApiKey";
ALTER TABLE "new_ApiKey" RENAME TO "ApiKey";
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");
CREATE INDEX "ApiKey_name_idx" ON "ApiKey"("name");
