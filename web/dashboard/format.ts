// Text for the dashboard: durations, times and event names, in one place so the page reads consistently.

const pad = (value: number): string => String(value).padStart(2, '0');

/** A lease countdown: "4:59", or "1:02:03" from an hour up; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** An age in words, coarser as it grows: "45 s", "12 min 5 s", "3 h 5 min", "2 d 4 h". */
export function formatAge(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  if (total < 60) return `${total} s`;
  if (total < 3600) return `${Math.floor(total / 60)} min ${total % 60} s`;
  if (total < 86_400) return `${Math.floor(total / 3600)} h ${Math.floor((total % 3600) / 60)} min`;
  return `${Math.floor(total / 86_400)} d ${Math.floor((total % 86_400) / 3600)} h`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** A server timestamp as a wall-clock time in the viewer's time zone. */
export function formatTime(value: string | number): string {
  return timeFormat.format(new Date(value));
}

const EVENT_LABELS: Record<string, string> = {
  ITEM_ADDED: 'added',
  LEASE_CLAIMED: 'claimed',
  LEASE_RENEWED: 'lease renewed',
  LEASE_RELEASED: 'released',
  LEASE_EXPIRED: 'lease expired',
  ITEM_DECIDED: 'decided',
  CATEGORY_ADDED: 'category added',
  CATEGORY_RETIRED: 'category retired',
  OPERATION_REFUSED: 'refused',
  API_KEY_CREATED: 'API key created',
  API_KEY_REVOKED: 'API key revoked',
};

/** A short human name for an event type; unknown types (proposal events, say) fall back to their code in words. */
export function eventLabel(type: string): string {
  return EVENT_LABELS[type] ?? type.toLowerCase().replaceAll('_', ' ');
}

/** "ACCEPTED" → "Accepted": enum values as table text. */
export function titleCase(value: string): string {
  return value.charAt(0) + value.slice(1).toLowerCase().replaceAll('_', ' ');
}
