// An MCP tool result as a person reads it: text as text, images as images, embedded
// resources and resource links named, structured content as JSON. Nothing in a result is
// ever treated as HTML; image data must say it is an image.

import { html } from "../html.js";
import { t } from "../i18n.js";

export function ToolResult({ result }) {
  if (result == null) return null;
  if (typeof result === "string") return html`<pre class="result-text">${result}</pre>`;
  // Our own errors (a rejection, a call that could not be made) carry {error: {code, message}}.
  if (result.error && typeof result.error === "object" && !Array.isArray(result.content)) {
    return html`<p class="result-error"><code>${result.error.code}</code> ${result.error.message}</p>`;
  }
  const parts = Array.isArray(result.content) ? result.content : null;
  if (!parts) return html`<pre class="result-text">${JSON.stringify(result, null, 2)}</pre>`;
  return html`<div class="result-parts">
    ${parts.map((part, i) => html`<${Part} key=${i} part=${part} />`)}
    ${parts.length === 0 && result.structuredContent !== undefined
      ? html`<pre class="result-text">${JSON.stringify(result.structuredContent, null, 2)}</pre>`
      : null}
  </div>`;
}

function Part({ part }) {
  switch (part?.type) {
    case "text":
      return html`<pre class="result-text">${part.text}</pre>`;
    case "image":
      return isImage(part.mimeType)
        ? html`<img class="result-image" alt=${t("ui.result.image_alt", { type: part.mimeType })}
            src=${`data:${part.mimeType};base64,${part.data}`} />`
        : html`<p class="muted">${t("ui.result.image_hidden", { type: String(part.mimeType) })}</p>`;
    case "audio":
      return html`<p class="muted">${t("ui.result.audio", { type: String(part.mimeType) })}</p>`;
    case "resource": {
      const r = part.resource || {};
      return r.text !== undefined
        ? html`<figure class="resource"><figcaption>${r.uri}</figcaption><pre class="result-text">${r.text}</pre></figure>`
        : html`<p class="muted">${t("ui.result.resource", { uri: r.uri, type: r.mimeType || t("ui.result.binary") })}</p>`;
    }
    case "resource_link":
      return html`<p class="muted">${t("ui.result.link")} <code>${part.uri}</code>${part.name ? ` (${part.name})` : ""}</p>`;
    default:
      return html`<pre class="result-text">${JSON.stringify(part, null, 2)}</pre>`;
  }
}

function isImage(mimeType) {
  return typeof mimeType === "string" && /^image\/(png|jpeg|gif|webp|svg\+xml|bmp)$/i.test(mimeType);
}
