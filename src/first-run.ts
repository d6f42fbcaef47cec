// What a new database's first start prints: the ADMIN key it made, once, on the terminal. Shared by
// `npm start` (src/main.ts) and `leasehold serve`, which runs the same start-up.
import path from 'node:path';
import { type DatabaseLocation, DEFAULT_DATABASE_URL, databaseFileFromUrl } from './config/database-location.js';

/** Shown once, on the terminal only (never through the logger), when a new database gets its first key. */
export function firstRunBanner(key: string, url: string, database: DatabaseLocation): string {
  // The command line finds the default database, or DATABASE_URL's, by itself; any other file has to
  // be named. A PostgreSQL URL is never printed: it holds a password.
  const cli =
    database.dialect === 'postgresql'
      ? ' (with the same DATABASE_URL)'
      : path.resolve(databaseFileFromUrl(DEFAULT_DATABASE_URL)) === path.resolve(database.file)
        ? ''
        : ` --db ${JSON.stringify(database.file)}`;
  return [
    '',
    'Leasehold: this database had no API keys, so an ADMIN key was made. It is shown only this once:',
    '',
    `    ${key}`,
    '',
    `Open ${url}/graphql and paste this under Headers:`,
    '',
    `    { "Authorization": "Bearer ${key}" }`,
    '',
    'Then make keys for reviewers and apps with the createApiKey mutation, or',
    database.dialect === 'postgresql'
      ? `\`npx leasehold keys create --name tanaka --role REVIEWER\`${cli}. See the README.`
      : `\`npx leasehold keys create${cli} --name tanaka --role REVIEWER\`. See the README.`,
    '',
    '',
  ].join('\n');
}
