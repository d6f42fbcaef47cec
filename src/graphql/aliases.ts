// One name per idea (issue 16): where a field or argument was renamed, the old name stays one release as a
// deprecated alias. Values given under both names must agree.
import { DomainError } from '../domain/errors.js';

/** The deprecation reason of an old name. */
export function renamedTo(name: string): string {
  return `Renamed to \`${name}\`; this name will be removed in the next release.`;
}

/** A value given under its name or under its deprecated alias: both only when they agree. */
export function aliased<T>(value: T | null | undefined, deprecated: T | null | undefined, name: string, oldName: string): T | null {
  if (value != null && deprecated != null && value !== deprecated) {
    throw new DomainError('INVALID_ARGUMENT', `Give ${name} or ${oldName} (its deprecated name), not both with different values.`, name);
  }
  return value ?? deprecated ?? null;
}

/** A list filter as the services take it: `claimedBy`, or `holder`, its deprecated name, as `holder`. */
export function holderFilter<Filter extends { claimedBy?: string | null; holder?: string | null }>(
  filter: Filter | null | undefined,
): Omit<Filter, 'claimedBy'> {
  if (!filter) return {} as Omit<Filter, 'claimedBy'>;
  const { claimedBy, ...rest } = filter;
  return { ...rest, holder: aliased(claimedBy, filter.holder, 'filter.claimedBy', 'filter.holder') };
}
