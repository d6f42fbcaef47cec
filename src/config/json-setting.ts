// How a setting is refused: ConfigError, and the parser of JSON settings that raises it with one line naming what is wrong.
import type { z } from 'zod';

export class ConfigError extends Error {}

/** Parses one JSON setting with `shape`, or ends the start with one line naming what is wrong. */
export function jsonSetting<T>(name: string, text: string, shape: z.ZodType<T>, expected: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`Invalid configuration: ${name} must be JSON: ${expected}`);
  }
  const parsed = shape.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(
      `Invalid configuration: ${name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
