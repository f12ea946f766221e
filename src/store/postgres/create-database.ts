import pg from 'pg';

/**
 * `seed` and `demo` create the database their `postgres://` URL names when the server has none of
 * that name (issue 57: the CLI said so, and `seed` then failed on `database "vms" does not
 * exist`). Connected to the server's `postgres` database as the URL's role; a role that may not
 * create databases is told how to make one.
 */
export async function createPostgresDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('the postgres URL names no database (postgres://…/NAME)');
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    // An identifier cannot be a bound parameter: quoted, its quotes doubled.
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    // Made meanwhile by another (duplicate_database): there it is.
    if (code === '42P04') return;
    if (code === '42501')
      throw new Error(
        `PostgreSQL has no database "${name}" and this role may not create one: ` +
          `create it as a role that may (createdb "${name}", or CREATE DATABASE "${name}"), then seed again`,
        { cause: error },
      );
    throw error;
  } finally {
    await client.end();
  }
}
