-- Up Migration

-- Whether the identity provider vouched for users.email at the user's last sign-in
-- (`email_verified`). Only a verified email links an account or matches invitations. Rows from
-- before this column start unverified; the next sign-in (every request re-resolves within 30 s)
-- sets it from the token.
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

-- Down Migration

ALTER TABLE users DROP COLUMN email_verified;
