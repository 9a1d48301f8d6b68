// Client-side routing on real paths (/chat/<id>, /settings/mcp ...): the server answers every
// such path with index.html, so a reload or a shared link lands on the same page.

import { useEffect, useState } from "../vendor/hooks.js";

const listeners = new Set();

export function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  listeners.forEach((l) => l(location.pathname));
}

addEventListener("popstate", () => listeners.forEach((l) => l(location.pathname)));

/** The current path, re-rendering on navigation. */
export function usePath() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    listeners.add(setPath);
    return () => listeners.delete(setPath);
  }, []);
  return path;
}

/** An onClick for <a href> that navigates in place (but lets modified clicks open tabs). */
export function follow(event) {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = event.currentTarget.getAttribute("href");
  if (!href || !href.startsWith("/")) return;
  event.preventDefault();
  navigate(href);
}
