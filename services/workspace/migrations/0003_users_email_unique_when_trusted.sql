-- Up Migration

-- An address is unique only among the rows that may be matched by it: emails the identity provider
-- vouched for at the last sign-in, and users known by email before their first sign-in (idp_uid
-- NULL, added by an operator). An unverified email is a label on its own account: several accounts
-- may carry it, and none of them can keep the address's owner out (issue 11.2). Every lookup that
-- trusts an address (db/users.ts `trustedEmail`) repeats this predicate, so it uses this index.
--
-- Safe on existing data: every row satisfied the old index over all rows, so no two rows can
-- break this narrower one. The new index is built before the old one goes, in the migration's
-- transaction, so there is no moment without the rule; writes to users wait while it builds
-- (one row per person: a short wait).
CREATE UNIQUE INDEX users_trusted_email_key ON users (lower(email)) WHERE email_verified OR idp_uid IS NULL;
DROP INDEX users_email_lower_key;

-- Down Migration

-- Fails while two rows share an address (possible after the up migration): settle which keeps it first.
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
DROP INDEX users_trusted_email_key;
