import { type EventType, eventContracts, matchesType } from '@wiki/events';

/**
 * The event types a webhook can hear: every type of the catalogue (libs/events) that belongs to a
 * workspace. `user.*` events belong to a person, not a workspace, and are never delivered.
 */
export const WEBHOOK_EVENT_TYPES = (Object.keys(eventContracts) as EventType[]).filter((t) => !t.startsWith('user.'));

/** `document`, `comment`, ...: the groups a `<group>.*` filter may name. */
const GROUPS = new Set(WEBHOOK_EVENT_TYPES.map((t) => t.split('.')[0]));

export const MAX_WEBHOOK_FILTERS = 50;

/**
 * Why a filter is not one a webhook may hold, or null: an event type of the catalogue
 * (`document.created`), a group of them (`document.*`), or `*` for every event.
 */
export function filterProblem(filter: string): string | null {
  if (filter === '*') return null;
  if (filter.endsWith('.*')) return GROUPS.has(filter.slice(0, -2)) ? null : `"${filter}" names no group of events`;
  return (WEBHOOK_EVENT_TYPES as string[]).includes(filter) ? null : `"${filter}" is not an event type`;
}

/** Whether an event of `type` goes to a webhook with these filters. */
export function webhookWants(filters: readonly string[], type: string): boolean {
  if (!(WEBHOOK_EVENT_TYPES as string[]).includes(type)) return false;
  return filters.some((f) => f === '*' || matchesType(f, type));
}
