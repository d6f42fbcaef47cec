// `npm run db:migrate`: create (if needed) and migrate the database named by DATABASE_URL.
import { loadConfig } from '../config.js';
import { migrateDatabase } from './migrate.js';

const config = loadConfig();
const applied = migrateDatabase(config.databaseFile, { busyTimeoutMs: config.busyTimeoutMs });
process.stdout.write(
  `${JSON.stringify({ database: config.databaseFile, applied, message: applied.length ? 'migrations applied' : 'already up to date' })}\n`,
);
