// The schema is documented for the people who use it: every type, field, argument and enum value
// carries a description, and the committed schema.graphql is what the code serves.
import { readFileSync } from 'node:fs';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printSortedSchema, schema } from '../../src/graphql/schema.js';

const BUILT_IN = /^(__|String$|Int$|Float$|Boolean$|ID$)/;

function undocumented(): string[] {
  const missing: string[] = [];
  const check = (path: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(path);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (BUILT_IN.test(type.name)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      const fields = Object.values(type.getFields()) as (GraphQLField<unknown, unknown> | GraphQLInputField)[];
      for (const field of fields) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of ('args' in field ? field.args : []) as GraphQLArgument[]) {
          check(`${type.name}.${field.name}(${arg.name})`, arg.description);
        }
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    if (isUnionType(type)) check(type.name, type.description);
  }
  return missing;
}

describe('the GraphQL schema', () => {
  it('describes every type, field, argument and enum value', () => {
    expect(undocumented()).toEqual([]);
  });

  it('is committed as schema.graphql exactly as the code prints it', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(printSortedSchema());
  });
});
