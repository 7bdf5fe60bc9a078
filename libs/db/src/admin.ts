import pg from 'pg';

function split(databaseUrl: string): { server: string; name: string } {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]{1,63}$/.test(name)) throw new Error(`Database name "${name}" must be letters, digits and _`);
  url.pathname = '/postgres';
  return { server: url.toString(), name };
}

async function withServer<T>(databaseUrl: string, fn: (client: pg.Client, name: string) => Promise<T>): Promise<T> {
  const { server, name } = split(databaseUrl);
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await fn(client, name);
  } finally {
    await client.end();
  }
}

/** Creates the database named in the URL when it does not exist (safe when several processes race). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  return withServer(databaseUrl, async (client, name) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '42P04' || (error as { code?: string }).code === '23505') return false;
      throw error;
    }
  });
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  await withServer(databaseUrl, async (client, name) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

/** Drops every database whose name starts with `prefix` (test clean-up). */
export async function dropDatabasesWithPrefix(serverUrl: string, prefix: string): Promise<string[]> {
  if (!/^[a-z0-9_]{3,}$/.test(prefix)) throw new Error(`Refusing to drop databases with prefix "${prefix}"`);
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  return withServer(url.toString(), async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1 || '\\_%'",
      [prefix],
    );
    // One connection per database, all at once: each DROP waits for a checkpoint, and drops that
    // run together share one (nine in a row took seconds; together, under one).
    await Promise.all(
      rows.map(({ datname }) => {
        const target = new URL(serverUrl);
        target.pathname = `/${datname}`;
        return dropDatabase(target.toString());
      }),
    );
    return rows.map((r) => r.datname);
  });
}
