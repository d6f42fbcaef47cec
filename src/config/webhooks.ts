// Outbound webhooks' setting, WEBHOOKS: where to POST which events, and the keys that sign them.
import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../domain/events.js';
import { ConfigError } from './json-setting.js';

const WEBHOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const webhookSchema = z.strictObject({
  name: z.string().regex(WEBHOOK_NAME, 'must be 1–64 characters of A–Z, a–z, 0–9, ".", "_" or "-", starting with a letter or digit'),
  url: z.string().refine(isWebhookUrl, 'must be an http:// or https:// URL without a user name or password'),
  events: z
    .array(z.string().refine((type) => Object.hasOwn(EVENT_TYPES, type), 'is not an event type (see docs/domain.md)'))
    .min(1, 'must name at least one event type'),
  // The secret's value is never repeated in a message: these say only what is wrong with it.
  secret: z.string().min(32, 'must be at least 32 characters').max(1024, 'must be at most 1024 characters'),
});

function isWebhookUrl(text: string): boolean {
  const url = URL.canParse(text) ? new URL(text) : null;
  return url !== null && /^https?:$/.test(url.protocol) && !url.username && !url.password;
}

/** An outbound webhook: where to POST which events, and the key that signs them (docs/webhooks.md). */
export interface WebhookConfig {
  name: string;
  url: string;
  events: readonly EventType[];
  secret: string;
}

/** WEBHOOKS: a JSON array of {name, url, events, secret}; names unique. */
export function webhooksConfig(text: string | undefined): WebhookConfig[] {
  if (text === undefined || text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration: WEBHOOKS must be a JSON array of {"name","url","events","secret"}');
  }
  const parsed = z.array(webhookSchema).safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(
      `Invalid configuration: WEBHOOKS: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  const seen = new Set<string>();
  for (const webhook of parsed.data) {
    if (seen.has(webhook.name)) throw new ConfigError(`Invalid configuration: WEBHOOKS: the name "${webhook.name}" is used twice`);
    seen.add(webhook.name);
  }
  return parsed.data.map((webhook) => ({ ...webhook, events: [...new Set(webhook.events as EventType[])] }));
}
