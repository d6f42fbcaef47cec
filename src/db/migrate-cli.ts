// `npm run db:migrate`: create (if needed) and migrate the database named by DATABASE_URL.
import { describeDatabase } from '../config/database-location.js';
import { loadConfig } from '../config.js';
import { migrateDatabase } from './migrate.js';
import { migratePostgres } from './migrate-postgres.js';

const config = loadConfig();
const applied =
  config.database.dialect === 'postgresql'
    ? await migratePostgres(config.database.url)
    : migrateDatabase(config.database.file, { busyTimeoutMs: config.busyTimeoutMs });
process.stdout.write(
  `${JSON.stringify({ database: describeDatabase(config.database), applied, message: applied.length ? 'migrations applied' : 'already up to date' })}\n`,
);
