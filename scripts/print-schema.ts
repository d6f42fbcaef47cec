// `npm run schema:print`: writes schema.graphql from the Pothos schema (sorted).
import { writeFileSync } from 'node:fs';
import { printSortedSchema } from '../src/graphql/schema.js';

writeFileSync('schema.graphql', printSortedSchema());
process.stdout.write('Wrote schema.graphql\n');
