import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@wiki/config';
import { createDatabasePool, type DatabasePool, ensureDatabase, migrate, sql, z } from '@wiki/db';
import { migrationSetsOf } from '@wiki/service';
import { cleanupConfig, isolatedConfig, UNUSED_IDP } from '@wiki/testing';
import { workspaceService } from '../src/service.js';

/**
 * Migration 0003 on a database that already has users (issue 11.2): the unique email index
 * narrows to the addresses that may be matched (verified, or a user known only by email), keeping
 * every row, so an unverified row no longer blocks another account from the address.
 */

const NARROWING = '0003_users_email_unique_when_trusted';

let config: Config;
let pool: DatabasePool;
let before: string;

/** The workspace service's migrations up to (not including) `name`, in a folder of their own. */
function migrationsBefore(name: string): string {
  const [set] = workspaceService.migrations;
  const dir = mkdtempSync(join(tmpdir(), 'workspace-migrations-'));
  for (const file of readdirSync(set.dir).filter((f) => f < name)) copyFileSync(join(set.dir, file), join(dir, file));
  return dir;
}

beforeAll(async () => {
  config = isolatedConfig(UNUSED_IDP);
  before = migrationsBefore(NARROWING);
  await ensureDatabase(config.databaseUrls.workspace);
  const [events, own] = migrationSetsOf(workspaceService);
  await migrate(config.databaseUrls.workspace, [events, { ...own, dir: before }]);
  pool = await createDatabasePool(config.databaseUrls.workspace);
});

afterAll(async () => {
  await pool?.end();
  rmSync(before, { recursive: true, force: true });
  if (config) await cleanupConfig(config);
});

const Row = z.object({ email: z.string(), idpUid: z.string().nullable(), emailVerified: z.boolean() });

const insert = (email: string, idpUid: string | null, verified: boolean) =>
  pool.query(sql.unsafe`
    INSERT INTO users (idp_uid, email, email_verified, name) VALUES (${idpUid}, ${email}, ${verified}, 'Someone')`);

const rows = () =>
  pool.any(sql.type(Row)`
    SELECT email, idp_uid AS "idpUid", email_verified AS "emailVerified" FROM users ORDER BY email, idp_uid`);

it('keeps every user, and then lets an unverified address be shared but never a trusted one', async () => {
  await insert('Verified@example.com', 'idp|verified', true);
  await insert('unverified@example.com', 'idp|unverified', false);
  await insert('provisioned@example.com', null, false);
  const existing = await rows();
  // Before: one row per address, whatever its state.
  await expect(insert('UNVERIFIED@example.com', 'idp|second', false)).rejects.toThrow(/unique/i);

  const applied = await migrate(config.databaseUrls.workspace, migrationSetsOf(workspaceService));
  expect(applied).toContain(NARROWING);
  expect(await rows()).toEqual(existing);

  // An unverified address is a label: another account may carry it, verified or not.
  await insert('UNVERIFIED@example.com', 'idp|second', false);
  await insert('unverified@example.com', 'idp|owner', true);
  // A verified address, and the address of a user known only by it, stay with one account.
  await expect(insert('verified@example.com', 'idp|other', true)).rejects.toThrow(/unique/i);
  await expect(insert('PROVISIONED@example.com', 'idp|other', true)).rejects.toThrow(/unique/i);
  await expect(insert('provisioned@example.com', null, false)).rejects.toThrow(/unique/i);
  await expect(insert('unverified@example.com', 'idp|third', true)).rejects.toThrow(/unique/i);
  // Unverified rows beside a trusted holder are fine.
  await insert('verified@example.com', 'idp|squatter', false);
  await insert('provisioned@example.com', 'idp|squatter-2', false);
});
