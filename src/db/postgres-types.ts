// How Leasehold's own pg connections (the writer's direct statements, the event tail) exchange
// times with PostgreSQL. Prisma stores DateTime in `timestamp(3)` columns as UTC wall time; pg would
// read those as local time and write Dates with the local offset, so both directions are pinned to UTC.
import pg from 'pg';

const TIMESTAMP_OID = 1114;

export const postgresTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMP_OID) return (value: string) => new Date(`${value.replace(' ', 'T')}Z`);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** A parameter as sent: Dates as ISO-8601 UTC (a `timestamp` column ignores the zone: UTC wall time). */
export function postgresValue(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}
