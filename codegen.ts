// GraphQL Code Generator: typed documents for the operations the tests send and the dashboard sends.
import type { CodegenConfig } from '@graphql-codegen/cli';

const scalars = { DateTime: 'string', JSONObject: 'Record<string, unknown>' };

const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: true,
  generates: {
    'test/gql/': {
      documents: ['test/**/*.ts', '!test/gql/**'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        scalars,
        enumsAsTypes: true,
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
      },
    },
    // Which types each union and interface may be, for client caches that read fragments on them
    // (`... on Error`, `... on Node`): Apollo's InMemoryCache `possibleTypes`. Checked for drift with the rest (scripts/check-drift.ts); see docs/clients.md.
    'examples/clients/possible-types.ts': {
      plugins: ['fragment-matcher'],
      config: { apolloClientVersion: 3, useExplicitTyping: true },
    },
    // urql Graphcache's schema awareness: the schema, minified (types, fields and what implements what). With
    // only `possibleTypes`, Graphcache 9 still walks every fragment when it writes a result, and warns of each
    // field a fragment on another type asks for (`... on Error { message }` on a payload).
    'examples/clients/urql-schema.ts': {
      plugins: ['urql-introspection'],
      config: { module: 'es2015', useTypeImports: true },
    },
    // The example clients' trusted documents (examples/clients/gql/persisted-documents.json): they send their
    // operations by these hashes (docs/clients.md).
    'examples/clients/gql/': {
      documents: ['examples/clients/operations.ts'],
      preset: 'client',
      presetConfig: { fragmentMasking: false, persistedDocuments: true },
      config: { scalars, enumsAsTypes: true, useTypeImports: true, emitLegacyCommonJSImports: false, documentMode: 'string' },
    },
    // The browser bundle sends query strings: 'string' documents need no graphql-js at run time.
    'web/gql/': {
      documents: ['web/**/*.ts', '!web/gql/**'],
      preset: 'client',
      // persisted-documents.json: the dashboard's trusted documents by hash (PERSISTED_OPERATIONS, docs/clients.md).
      presetConfig: { fragmentMasking: false, persistedDocuments: true },
      config: {
        scalars,
        enumsAsTypes: true,
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        documentMode: 'string',
      },
    },
  },
};

export default config;
