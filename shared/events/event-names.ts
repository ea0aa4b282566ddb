// The system events functions may subscribe to (spec, Events): PRE events block the operation
// that fires them, POST events do not.
export const SYSTEM_EVENTS = ['PRE_USER_CREATE', 'POST_USER_CREATE'] as const;
export type SystemEvent = (typeof SYSTEM_EVENTS)[number];

export function isSystemEvent(name: string): name is SystemEvent {
  return (SYSTEM_EVENTS as readonly string[]).includes(name);
}
