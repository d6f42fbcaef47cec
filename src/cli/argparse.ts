// A transcription of the parts of Python's argparse (3.11) that seed A's parser uses, so that every
// command line a script can pass is read exactly as review_leases.py reads it: options anywhere,
// `--opt=value`, unambiguous abbreviations (`--rev` for `--reviewer`), `--` before positionals, the
// last of a repeated option winning, mutually exclusive groups, and — for compatibility — the same
// refusals (`--token -abc…` is an option, not a value). Only the messages are ours.

/** argparse's `error()`: seed A turns it into `argument_error`, exit 2. */
export class ArgumentError extends Error {}

/** `-h`/`--help` was taken: print this parser's help and exit 0 (argparse does it on the spot). */
export class HelpRequested extends Error {
  constructor(readonly parser: Parser) {
    super('help requested');
  }
}

/** A conversion refused its input (argparse's ArgumentTypeError). */
export class ArgumentTypeError extends Error {}

type Nargs = 'one' | 'optional' | 'zero' | 'parser';

export interface Action {
  dest: string;
  /** Empty for a positional. */
  optionStrings: string[];
  nargs: Nargs;
  kind: 'store' | 'append' | 'help' | 'parsers' | 'store_true';
  required: boolean;
  defaultValue: unknown;
  convert?: (value: string) => unknown;
  choices?: readonly string[];
  metavar?: string;
  help?: string;
}

export interface Parser {
  prog: string;
  description: string;
  actions: Action[];
  groups: { required: boolean; actions: Action[] }[];
  subparsers: Map<string, Parser> | null;
  /** Extra text after the option list in --help. */
  epilog?: string;
}

export type Namespace = Record<string, unknown>;

export function newParser(prog: string, description: string, epilog?: string): Parser {
  const parser: Parser = { prog, description, actions: [], groups: [], subparsers: null };
  if (epilog !== undefined) parser.epilog = epilog;
  parser.actions.push({
    dest: '==SUPPRESS==',
    optionStrings: ['-h', '--help'],
    nargs: 'zero',
    kind: 'help',
    required: false,
    defaultValue: '==SUPPRESS==',
    help: 'show this help and exit',
  });
  return parser;
}

export interface ArgumentOptions {
  required?: boolean;
  defaultValue?: unknown;
  convert?: (value: string) => unknown;
  choices?: readonly string[];
  append?: boolean;
  /** A flag without a value (argparse's action='store_true'): false unless given. */
  flag?: boolean;
  /** For a positional: zero or one value (nargs='?'). */
  optional?: boolean;
  metavar?: string;
  help?: string;
}

function destOf(name: string): string {
  return name.replace(/^-+/, '').replaceAll('-', '_');
}

export function addArgument(parser: Parser, name: string, options: ArgumentOptions = {}): Action {
  const positional = !name.startsWith('-');
  const flag = !positional && options.flag === true;
  const action: Action = {
    dest: destOf(name),
    optionStrings: positional ? [] : [name],
    nargs: flag ? 'zero' : positional && options.optional ? 'optional' : 'one',
    kind: flag ? 'store_true' : options.append ? 'append' : 'store',
    required: positional ? !options.optional : (options.required ?? false),
    defaultValue: flag ? false : (options.defaultValue ?? null),
  };
  if (options.convert) action.convert = options.convert;
  if (options.choices) action.choices = options.choices;
  if (options.metavar) action.metavar = options.metavar;
  if (options.help) action.help = options.help;
  parser.actions.push(action);
  return action;
}

export function addMutuallyExclusiveGroup(parser: Parser, required: boolean, actions: Action[]): void {
  parser.groups.push({ required, actions });
}

/** `name` is how usage errors call the argument (`the following arguments are required: command`). */
export function addSubparsers(parser: Parser, dest: string, name = 'command'): Map<string, Parser> {
  const map = new Map<string, Parser>();
  parser.subparsers = map;
  parser.actions.push({
    dest,
    optionStrings: [],
    nargs: 'parser',
    kind: 'parsers',
    required: true,
    defaultValue: null,
    metavar: `{${name}}`,
  });
  return map;
}

function actionName(action: Action): string {
  if (action.optionStrings.length > 0) return action.optionStrings.join('/');
  return action.kind === 'parsers' ? (action.metavar ?? '{command}').slice(1, -1) : action.dest;
}

interface OptionTuple {
  action: Action | null;
  optionString: string;
  explicitArg: string | null;
}

/** argparse's _negative_number_matcher (`\d` is Unicode, `$` also matches before a final newline). */
const NEGATIVE_NUMBER = /^-\p{Nd}+\n?$|^-\p{Nd}*\.\p{Nd}+\n?$/u;

/** The regex fragment argparse uses to match an action's arguments in the 'O'/'A'/'-' pattern. */
function nargsPattern(action: Action): string {
  let pattern: string;
  switch (action.nargs) {
    case 'one':
      pattern = '(-*A-*)';
      break;
    case 'optional':
      pattern = '(-*A?-*)';
      break;
    case 'zero':
      pattern = '(-*-*)';
      break;
    case 'parser':
      pattern = '(-*A[-AO]*)';
      break;
  }
  // An optional's arguments cannot include "--".
  if (action.optionStrings.length > 0) pattern = pattern.replaceAll('-*', '').replaceAll('-', '');
  return pattern;
}

class Run {
  private readonly optionActions = new Map<string, Action>();

  constructor(private readonly parser: Parser) {
    for (const action of parser.actions) for (const option of action.optionStrings) this.optionActions.set(option, action);
  }

  private parseOptional(arg: string): OptionTuple | null {
    if (!arg) return null;
    if (arg[0] !== '-') return null;
    const exact = this.optionActions.get(arg);
    if (exact) return { action: exact, optionString: arg, explicitArg: null };
    if (arg.length === 1) return null;
    const equals = arg.indexOf('=');
    if (equals >= 0) {
      const option = arg.slice(0, equals);
      const action = this.optionActions.get(option);
      if (action) return { action, optionString: option, explicitArg: arg.slice(equals + 1) };
    }
    const tuples = this.optionTuples(arg);
    if (tuples.length > 1) {
      throw new ArgumentError(`ambiguous option: ${arg} could match ${tuples.map((tuple) => tuple.optionString).join(', ')}`);
    }
    if (tuples.length === 1) return tuples[0] as OptionTuple;
    if (NEGATIVE_NUMBER.test(arg)) return null;
    if (arg.includes(' ')) return null;
    return { action: null, optionString: arg, explicitArg: null };
  }

  /** Abbreviations: `--rev` → `--reviewer`, `--rev=x`; `-hX` for the one single-dash option. */
  private optionTuples(arg: string): OptionTuple[] {
    const result: OptionTuple[] = [];
    if (arg[1] === '-') {
      const equals = arg.indexOf('=');
      const prefix = equals >= 0 ? arg.slice(0, equals) : arg;
      const explicitArg = equals >= 0 ? arg.slice(equals + 1) : null;
      for (const [option, action] of this.optionActions) {
        if (option.startsWith(prefix)) result.push({ action, optionString: option, explicitArg });
      }
    } else {
      const shortPrefix = arg.slice(0, 2);
      const shortExplicit = arg.slice(2);
      for (const [option, action] of this.optionActions) {
        if (option === shortPrefix) result.push({ action, optionString: option, explicitArg: shortExplicit });
        else if (option.startsWith(arg)) result.push({ action, optionString: option, explicitArg: null });
      }
    }
    return result;
  }

  private matchArgument(action: Action, pattern: string): number {
    const match = new RegExp(`^${nargsPattern(action)}`).exec(pattern);
    if (!match) {
      const expected = action.nargs === 'optional' ? 'expected at most one argument' : 'expected one argument';
      throw new ArgumentError(`argument ${actionName(action)}: ${expected}`);
    }
    return (match[1] as string).length;
  }

  private matchPartial(actions: Action[], pattern: string): number[] {
    for (let count = actions.length; count > 0; count--) {
      const regex = new RegExp(`^${actions.slice(0, count).map(nargsPattern).join('')}`);
      const match = regex.exec(pattern);
      if (match) return match.slice(1).map((group) => (group ?? '').length);
    }
    return [];
  }

  private convert(action: Action, value: string): unknown {
    if (!action.convert) return value;
    try {
      return action.convert(value);
    } catch (error) {
      const reason = error instanceof ArgumentTypeError ? error.message : `invalid value: '${value}'`;
      throw new ArgumentError(`argument ${actionName(action)}: ${reason}`);
    }
  }

  private checkChoice(action: Action, value: unknown): void {
    if (action.choices && !action.choices.includes(value as string)) {
      throw new ArgumentError(
        `argument ${actionName(action)}: invalid choice: '${String(value)}' (choose from ${action.choices.map((c) => `'${c}'`).join(', ')})`,
      );
    }
  }

  /** Returns the converted value and whether it is the action's default (argparse's `is` test). */
  private values(action: Action, given: string[]): { value: unknown; isDefault: boolean } {
    const strings = [...given];
    if (action.nargs !== 'parser') {
      const dashes = strings.indexOf('--');
      if (dashes >= 0) strings.splice(dashes, 1);
    }
    if (strings.length === 0 && action.nargs === 'optional') {
      return { value: action.defaultValue, isDefault: true };
    }
    if (strings.length === 1 && (action.nargs === 'one' || action.nargs === 'optional')) {
      const value = this.convert(action, strings[0] as string);
      this.checkChoice(action, value);
      return { value, isDefault: false };
    }
    if (action.nargs === 'parser') {
      this.checkChoice(action, strings[0]);
      return { value: strings, isDefault: false };
    }
    return { value: strings, isDefault: false };
  }

  parseKnown(args: string[]): { namespace: Namespace; extras: string[] } {
    const parser = this.parser;
    const namespace: Namespace = {};
    for (const action of parser.actions) if (action.kind !== 'help') namespace[action.dest] = action.defaultValue;

    const conflicts = new Map<Action, Action[]>();
    for (const group of parser.groups) {
      for (const member of group.actions) {
        conflicts.set(member, [...(conflicts.get(member) ?? []), ...group.actions.filter((other) => other !== member)]);
      }
    }

    // The 'O' / 'A' / '-' pattern of the arguments.
    const optionAt = new Map<number, OptionTuple>();
    let pattern = '';
    for (let index = 0; index < args.length; index++) {
      const arg = args[index] as string;
      if (arg === '--') {
        pattern += '-';
        pattern += 'A'.repeat(args.length - index - 1);
        break;
      }
      const tuple = this.parseOptional(arg);
      if (tuple === null) pattern += 'A';
      else {
        optionAt.set(index, tuple);
        pattern += 'O';
      }
    }

    const seen = new Set<Action>();
    const seenNonDefault = new Set<Action>();
    const extras: string[] = [];

    const takeAction = (action: Action, strings: string[]) => {
      seen.add(action);
      const { value, isDefault } = this.values(action, strings);
      if (!isDefault) {
        seenNonDefault.add(action);
        for (const other of conflicts.get(action) ?? []) {
          if (seenNonDefault.has(other))
            throw new ArgumentError(`argument ${actionName(action)}: not allowed with argument ${actionName(other)}`);
        }
      }
      switch (action.kind) {
        case 'help':
          throw new HelpRequested(parser);
        case 'store':
          namespace[action.dest] = value;
          break;
        case 'store_true':
          namespace[action.dest] = true;
          break;
        case 'append':
          namespace[action.dest] = [...((namespace[action.dest] as unknown[] | null) ?? []), value];
          break;
        case 'parsers': {
          const [name, ...rest] = value as string[];
          namespace[action.dest] = name;
          const sub = parser.subparsers?.get(name as string);
          if (!sub) throw new ArgumentError(`argument ${actionName(action)}: invalid choice: '${name}'`);
          const result = new Run(sub).parseKnown(rest);
          Object.assign(namespace, result.namespace);
          extras.push(...result.extras);
          break;
        }
      }
    };

    const consumeOptional = (start: number): number => {
      let { action, optionString, explicitArg } = optionAt.get(start) as OptionTuple;
      const taken: { action: Action; strings: string[] }[] = [];
      let stop: number;
      for (;;) {
        if (action === null) {
          extras.push(args[start] as string);
          return start + 1;
        }
        if (explicitArg !== null) {
          const count = this.matchArgument(action, 'A');
          if (count === 0 && optionString[1] !== '-' && explicitArg !== '') {
            // -xyz as -x -y -z: only -h exists here, so the tail is never another option.
            taken.push({ action, strings: [] });
            const next = `-${explicitArg[0]}`;
            const nextAction = this.optionActions.get(next);
            if (!nextAction) throw new ArgumentError(`argument ${actionName(action)}: ignored explicit argument '${explicitArg}'`);
            action = nextAction;
            optionString = next;
            explicitArg = explicitArg.slice(1) || null;
          } else if (count === 1) {
            stop = start + 1;
            taken.push({ action, strings: [explicitArg] });
            break;
          } else {
            throw new ArgumentError(`argument ${actionName(action)}: ignored explicit argument '${explicitArg}'`);
          }
        } else {
          const from = start + 1;
          const count = this.matchArgument(action, pattern.slice(from));
          stop = from + count;
          taken.push({ action, strings: args.slice(from, stop) });
          break;
        }
      }
      for (const entry of taken) takeAction(entry.action, entry.strings);
      return stop;
    };

    const positionals = parser.actions.filter((action) => action.optionStrings.length === 0);
    const consumePositionals = (start: number): number => {
      const counts = this.matchPartial(positionals, pattern.slice(start));
      let index = start;
      for (const [position, count] of counts.entries()) {
        takeAction(positionals[position] as Action, args.slice(index, index + count));
        index += count;
      }
      positionals.splice(0, counts.length);
      return index;
    };

    const optionIndices = [...optionAt.keys()];
    const maxOptionIndex = optionIndices.length > 0 ? Math.max(...optionIndices) : -1;
    let start = 0;
    while (start <= maxOptionIndex) {
      const nextOption = Math.min(...optionIndices.filter((index) => index >= start));
      if (start !== nextOption) {
        const end = consumePositionals(start);
        if (end > start) {
          start = end;
          continue;
        }
        start = end;
      }
      if (!optionAt.has(start)) {
        extras.push(...args.slice(start, nextOption));
        start = nextOption;
      }
      start = consumeOptional(start);
    }
    const stop = consumePositionals(start);
    extras.push(...args.slice(stop));

    const missing = parser.actions.filter((action) => !seen.has(action) && action.required).map(actionName);
    if (missing.length > 0) throw new ArgumentError(`the following arguments are required: ${missing.join(', ')}`);
    for (const group of parser.groups) {
      if (group.required && !group.actions.some((action) => seenNonDefault.has(action))) {
        throw new ArgumentError(`one of the arguments ${group.actions.map(actionName).join(' ')} is required`);
      }
    }
    return { namespace, extras };
  }
}

/** argparse's parse_args: parse_known_args, then any leftover argument is an error. */
export function parseArgs(parser: Parser, args: string[]): Namespace {
  const { namespace, extras } = new Run(parser).parseKnown(args);
  if (extras.length > 0) throw new ArgumentError(`unrecognized arguments: ${extras.join(' ')}`);
  return namespace;
}

/** The help text of one parser: usage, description, and one line per argument. */
export function formatHelp(parser: Parser): string {
  const usage: string[] = [parser.prog];
  const lines: string[] = [];
  for (const action of parser.actions) {
    if (action.kind === 'parsers') {
      usage.push(`<${actionName(action)}> ...`);
      continue;
    }
    const label =
      action.optionStrings.length === 0
        ? (action.metavar ?? action.dest.toUpperCase())
        : action.kind === 'help' || action.kind === 'store_true'
          ? action.optionStrings.join(', ')
          : `${action.optionStrings.join(', ')} ${action.metavar ?? action.dest.toUpperCase()}`;
    if (action.kind !== 'help') {
      const shown = action.optionStrings.length === 0 ? label : label.replace(', ', '|');
      const inGroup = parser.groups.find((group) => group.actions.includes(action));
      if (inGroup && inGroup.actions[0] === action) {
        const alternatives = inGroup.actions.map((member) => `${member.optionStrings[0]} ${member.metavar ?? member.dest.toUpperCase()}`);
        usage.push(inGroup.required ? `(${alternatives.join(' | ')})` : `[${alternatives.join(' | ')}]`);
      } else if (!inGroup) {
        const repeat = action.kind === 'append' ? ' ...' : '';
        usage.push(action.required ? `${shown}${repeat}` : `[${shown}]${repeat}`);
      }
    }
    lines.push(`  ${label.padEnd(30)} ${action.help ?? ''}`.trimEnd());
  }
  const parts = [`usage: ${usage.join(' ')}`, '', parser.description, '', 'arguments:', ...lines];
  if (parser.epilog) parts.push('', parser.epilog);
  return `${parts.join('\n')}\n`;
}
