// One `html` tagged template for every component: htm bound to Preact's `h`, so the UI is
// written as HTML-like templates with no build step.

import { h, render } from "../vendor/preact.js";
import htm from "../vendor/htm.js";

export const html = htm.bind(h);
export { h, render };
