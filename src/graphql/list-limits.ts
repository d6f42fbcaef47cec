// How long a list argument may be. Every list the schema accepts (an argument, or a field of an input
// type) is bounded: a caller cannot make the server coerce, cost or query 100,000 values.
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  type NamedTypeNode,
  typeFromAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../domain/errors.js';
import { LIMITS } from '../domain/validation.js';

/** A list of anything else but enum values: as many as a page holds. */
const DEFAULT_LIST_LIMIT = 100;

/**
 * Lists with a limit of their own, by coordinate (`field(argument:)` for an argument, `Input.field`
 * for a field of an input type). A list of enum values takes at most as many values as the enum has.
 */
const LIST_LIMITS: Record<string, number> = {
  'nodes(ids:)': LIMITS.maxPageSize,
  'AddCategoriesInput.names': LIMITS.maxCategoriesPerCall,
  'ClaimExecutionInput.actions': DEFAULT_LIST_LIMIT,
  'ClaimExecutionInput.targetSystems': DEFAULT_LIST_LIMIT,
};

/** Refused by their service, with a code callers already branch on (TOO_MANY_ITEMS); still costed per value. */
const BOUNDED_BY_SERVICE: Record<string, number> = { 'AddItemsInput.items': LIMITS.maxItemsPerCall };

/** The most values the list at `coordinate` takes. */
export function listLimit(coordinate: string, list: GraphQLInputType): number {
  const item = getNamedType(list);
  return LIST_LIMITS[coordinate] ?? BOUNDED_BY_SERVICE[coordinate] ?? (isEnumType(item) ? item.getValues().length : DEFAULT_LIST_LIMIT);
}

/** What a field's list arguments add up to. */
export interface ListValues {
  /** Values in every list of the arguments, nested ones included: each costs one. */
  values: number;
  /** The longest list given directly as an argument (a field like `nodes(ids:)` answers one per value), or null. */
  longest: number | null;
}

/**
 * Refuses a field's arguments when a list in them is over its limit (INVALID_ARGUMENT, naming the
 * argument and the limit), before any of its values is looked at; otherwise counts their values.
 */
export function checkListArguments<Context>(field: GraphQLField<unknown, Context>, args: Record<string, unknown>): ListValues {
  const tally: ListValues = { values: 0, longest: null };
  for (const argument of field.args) {
    const value = args[argument.name];
    if (value == null) continue;
    if (isListType(getNullableType(argument.type)) && Array.isArray(value)) {
      tally.longest = Math.max(tally.longest ?? 0, value.length);
    }
    // A mutation's fields are named as its UserErrors name them, inside its `input` (`names`, not `input.names`).
    visit(argument.type, value, `${field.name}(${argument.name}:)`, argument.name === 'input' ? '' : argument.name, tally);
  }
  return tally;
}

function visit(type: GraphQLInputType, value: unknown, coordinate: string, path: string, tally: ListValues): void {
  if (value == null) return;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return;
    const limit = listLimit(coordinate, nullable);
    if (value.length > limit && !(coordinate in BOUNDED_BY_SERVICE)) {
      throw new DomainError('INVALID_ARGUMENT', `${path} takes at most ${limit} values; ${value.length} were given.`, path);
    }
    tally.values += value.length;
    const item = getNullableType(nullable.ofType);
    // 500 addItems inputs hold no list: nothing in them to check or count, so they are not walked.
    if (isListType(item) || (isInputObjectType(item) && holdsList(item))) {
      value.forEach((element, index) => {
        visit(nullable.ofType, element, coordinate, `${path}[${index}]`, tally);
      });
    }
  } else if (isInputObjectType(nullable) && typeof value === 'object') {
    for (const field of Object.values(nullable.getFields())) {
      const at = path === '' ? field.name : `${path}.${field.name}`;
      visit(field.type, (value as Record<string, unknown>)[field.name], `${nullable.name}.${field.name}`, at, tally);
    }
  }
}

const holdingList = new WeakMap<GraphQLInputObjectType, boolean>();

/** Whether a value of `type` can hold a list anywhere inside it (kept per type). */
function holdsList(type: GraphQLInputObjectType): boolean {
  let holds = holdingList.get(type);
  if (holds === undefined) {
    holds = reachesList(type, new Set());
    holdingList.set(type, holds);
  }
  return holds;
}

/** Whether a list field is reachable from `type` (each type looked at once, so recursive types end). */
function reachesList(type: GraphQLInputObjectType, seen: Set<GraphQLInputObjectType>): boolean {
  if (seen.has(type)) return false;
  seen.add(type);
  return Object.values(type.getFields()).some((field) => {
    const fieldType = getNullableType(field.type);
    return isListType(fieldType) || (isInputObjectType(fieldType) && reachesList(fieldType, seen));
  });
}

/** Every list the schema accepts and its limit, by coordinate (for the documentation and its test). */
export function listLimitsOf(schema: GraphQLSchema): Map<string, number> {
  const limits = new Map<string, number>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        const coordinate = `${type.name}.${field.name}`;
        if (isListType(getNullableType(field.type))) limits.set(coordinate, listLimit(coordinate, field.type));
      }
    } else if ('getFields' in type) {
      for (const field of Object.values(type.getFields())) {
        for (const argument of 'args' in field ? field.args : []) {
          const coordinate = `${field.name}(${argument.name}:)`;
          if (isListType(getNullableType(argument.type))) limits.set(`${type.name}.${coordinate}`, listLimit(coordinate, argument.type));
        }
      }
    }
  }
  return limits;
}

/** No list in the schema takes more values than this (addItems' items). */
const LONGEST_LIST = LIMITS.maxItemsPerCall;
/**
 * Variables holding longer lists than this are refused before coercion. Twice the longest, so a list just
 * over its field's limit still gets that field's own answer (e.g. addItems' TOO_MANY_ITEMS for 501 items).
 */
const REFUSED_BEFORE_COERCION = 2 * LONGEST_LIST;

/** The longest list in a variable's value, following its type (a JSON scalar's arrays are its own). */
function longestList(type: GraphQLInputType, value: unknown): number {
  if (value == null) return 0;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return longestList(nullable.ofType, value);
    const item = getNullableType(nullable.ofType);
    if (!isListType(item) && !(isInputObjectType(item) && holdsList(item))) return value.length;
    return value.reduce((longest: number, element) => Math.max(longest, longestList(nullable.ofType, element)), value.length);
  }
  if (!isInputObjectType(nullable) || typeof value !== 'object') return 0;
  let longest = 0;
  for (const field of Object.values(nullable.getFields())) {
    longest = Math.max(longest, longestList(field.type, (value as Record<string, unknown>)[field.name]));
  }
  return longest;
}

/**
 * The variables' lists, before GraphQL coerces them (100,000 ids take graphql-js a quarter of a second
 * to coerce, all that time on the event loop): none may be much longer than the longest list the schema
 * takes. Each list is then held to its own limit as the operation starts. Null when they pass.
 */
export function variableListsRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: unknown,
): GraphQLError | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || variables === null || typeof variables !== 'object') return null;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as NamedTypeNode);
    if (!type || !isInputType(type)) continue;
    const longest = longestList(type, (variables as Record<string, unknown>)[name]);
    if (longest > REFUSED_BEFORE_COERCION) {
      return new GraphQLError(`$${name} holds a list of ${longest} values; no argument takes more than ${LONGEST_LIST}.`, {
        extensions: { code: 'INVALID_ARGUMENT', field: `$${name}`, http: { status: 400 } },
      });
    }
  }
  return null;
}

/** Yoga plugin: refuses an operation whose variables hold an over-long list before they are coerced. */
export function listVariables(): Plugin {
  const check = ({
    args,
    setResultAndStopExecution,
  }: {
    args: ExecutionArgs;
    setResultAndStopExecution(result: ExecutionResult): void;
  }) => {
    const refusal = variableListsRefusal(args.schema, args.document, args.operationName, args.variableValues);
    if (refusal) setResultAndStopExecution({ errors: [refusal] });
  };
  return { onExecute: check, onSubscribe: check };
}
