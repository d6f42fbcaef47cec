// `node --import ./test/cli/record-modules.mjs …`: appends every module URL the ES module loader
// resolves to the file named by LEASEHOLD_RECORD_MODULES, one a line (see start-up.test.ts).
import { register } from 'node:module';

register(new URL('./record-modules-hooks.mjs', import.meta.url), { data: { file: process.env.LEASEHOLD_RECORD_MODULES } });
