// How every web test starts Chromium: Debian's (or SWITCHBOARD_CHROMIUM), headless, with the
// flags that keep it off a closed network (no background requests, updates or sync).

export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM || "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
