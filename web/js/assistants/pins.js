// An assistant's pinned tools as the editor changes them: `[{serverId, tool?}]`, a pin
// without `tool` standing for every tool of its server. Pure functions; each answers a new
// list and never holds a pin twice.

/** Whether every tool of `serverId` is pinned. */
export function isWholeServer(pins, serverId) {
  return pins.some((pin) => pin.serverId === serverId && pin.tool == null);
}

/** Whether `tool` of `serverId` is pinned on its own (or with its whole server). */
export function isPinned(pins, serverId, tool) {
  return pins.some((pin) => pin.serverId === serverId && (pin.tool == null || pin.tool === tool));
}

/** `pins` with every tool of `serverId` pinned (its single pins then say nothing more), or none. */
export function pinWholeServer(pins, serverId, on) {
  const others = pins.filter((pin) => pin.serverId !== serverId);
  return on ? [...others, { serverId }] : others;
}

/** `pins` with `tool` of `serverId` pinned or not (a whole server's pin is left as it is). */
export function pinTool(pins, serverId, tool, on) {
  const others = pins.filter((pin) => !(pin.serverId === serverId && pin.tool === tool));
  return on ? [...others, { serverId, tool }] : others;
}

/** How many pins name `serverId`: "all" for the whole server, else the count of its tools. */
export function pinnedCount(pins, serverId) {
  if (isWholeServer(pins, serverId)) return "all";
  return pins.filter((pin) => pin.serverId === serverId).length;
}

/** The pins an assistant using `serverIds` is saved with: those of other servers dropped. */
export function pinsToSave(pins, serverIds) {
  return pins
    .filter((pin) => serverIds.includes(pin.serverId))
    .map((pin) => (pin.tool == null ? { serverId: pin.serverId } : { serverId: pin.serverId, tool: pin.tool }));
}
