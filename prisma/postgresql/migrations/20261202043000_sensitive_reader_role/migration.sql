-- Two roles more for API keys: RECONCILER (reconcileProposal) and SENSITIVE_READER (reads the parts of proposals
-- PROPOSAL_SENSITIVE_FIELDS names unmasked); the same list as SQLite's.
ALTER TABLE "ApiKey" DROP CONSTRAINT "ApiKey_roles_check";
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_roles_check" CHECK (
    "roles" NOT LIKE ',%' AND "roles" NOT LIKE '%,' AND "roles" NOT LIKE '%,,%' AND char_length("roles") > 0
    AND replace(replace(replace(replace(replace(replace(replace(replace("roles", 'SENSITIVE_READER', ''), 'RECONCILER', ''), 'ADMIN', ''), 'PROPOSER', ''), 'REVIEWER', ''), 'EXECUTOR', ''), 'VIEWER', ''), ',', '') = ''
);
