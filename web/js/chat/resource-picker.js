// The picker the message box's Attach opens: the resources of the conversation's servers,
// a group per server (one that fails shows its error and the others still show). A resource
// is chosen with its button; a resource template once its variables are filled in. Chosen
// ones are marked; when the message has MAX_ATTACHMENTS, nothing more can be chosen.
// Escape or Close closes it.

import { html } from "../html.js";
import { useEffect, useRef, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { idFor } from "../schema-fields.js";
import { ErrorNote } from "../ui/error-note.js";
import { MAX_ATTACHMENTS, expandTemplate, isAttached, templateVariables, unfilled } from "./attachments.js";
import { loadResources } from "./server-content.js";

/**
 * `loadServers()` answers the conversation's servers; `onAttach(item)` adds one (answering
 * a refusal, "duplicate" or "full", or nothing).
 */
export function ResourcePicker({ id, loadServers, attachments, onAttach, onClose }) {
  const [groups, setGroups] = useState(null);
  const [error, setError] = useState(null);
  const box = useRef(null);
  useEffect(() => {
    let live = true;
    box.current?.focus();
    loadServers()
      .then(loadResources)
      .then((g) => live && setGroups(g), (e) => live && setError(e));
    return () => {
      live = false;
    };
  }, []);
  const full = attachments.length >= MAX_ATTACHMENTS;
  const escape = (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onClose();
  };
  return html`<section id=${id} class="resource-picker" tabindex="-1" ref=${box} aria-labelledby=${`${id}:title`}
    aria-busy=${groups === null && !error} onKeyDown=${escape}>
    <header class="resource-picker-head">
      <h2 id=${`${id}:title`}>${t("ui.attach.title")}</h2>
      <button type="button" class="quiet resource-picker-close" onClick=${onClose}>${t("ui.common.close")}</button>
    </header>
    ${full ? html`<p class="muted small attach-full" role="status">${t("ui.attach.full", { max: MAX_ATTACHMENTS })}</p>` : null}
    ${groups === null && !error ? html`<p class="muted">${t("ui.common.loading")}</p>` : null}
    ${groups?.length === 0 ? html`<p class="muted">${t("ui.attach.no_servers")}</p>` : null}
    ${(groups || []).map((group) => html`<${ResourceGroup} key=${group.server.id} group=${group}
      attachments=${attachments} full=${full} onAttach=${onAttach} />`)}
    <${ErrorNote} error=${error} />
  </section>`;
}

function ResourceGroup({ group, attachments, full, onAttach }) {
  const { server, resources = [], templates = [] } = group;
  const head = idFor("resources", [server.id]);
  return html`<section class="resource-group" data-server-id=${server.id} aria-labelledby=${head}>
    <h3 id=${head}>${server.name}</h3>
    ${group.error ? html`<${ErrorNote} error=${group.error} />` : null}
    ${!group.error && !resources.length && !templates.length ? html`<p class="muted small">${t("ui.attach.none")}</p>` : null}
    ${resources.length
      ? html`<ul class="resource-list">
          ${resources.map((r) => {
            const attached = isAttached(attachments, server.id, r.uri);
            const name = r.title || r.name || r.uri;
            return html`<li class="resource-row" key=${r.uri} data-uri=${r.uri}>
              <button type="button" class="resource-choose" title=${r.uri} disabled=${attached || full}
                onClick=${() => onAttach({ serverId: server.id, serverName: server.name, uri: r.uri, name })}>${name}</button>
              ${attached ? html`<span class="badge">${t("ui.attach.attached_mark")}</span>` : null}
              ${r.mimeType ? html`<span class="muted small">${r.mimeType}</span>` : null}
              ${r.description ? html`<span class="muted small resource-description">${r.description}</span>` : null}
            </li>`;
          })}
        </ul>`
      : null}
    ${templates.map((tpl) => html`<${TemplateRow} key=${tpl.uriTemplate} server=${server} template=${tpl}
      full=${full} onAttach=${onAttach} />`)}
  </section>`;
}

/** A resource template: an input per variable, and Add once they are all filled in. */
function TemplateRow({ server, template, full, onAttach }) {
  const [values, setValues] = useState({});
  const [refused, setRefused] = useState(null);
  const variables = templateVariables(template.uriTemplate);
  const base = idFor("template", [server.id, template.uriTemplate]);
  const ready = !full && unfilled(template.uriTemplate, values).length === 0;
  const name = template.title || template.name || template.uriTemplate;
  const add = () => {
    if (!ready) return;
    const uri = expandTemplate(template.uriTemplate, values);
    const filled = variables.map((v) => values[v]).join(", ");
    const reason = onAttach({ serverId: server.id, serverName: server.name, uri, name: filled ? `${name} (${filled})` : name });
    setRefused(reason || null);
    if (!reason) setValues({});
  };
  const enter = (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    add();
  };
  return html`<div class="resource-template" data-uri-template=${template.uriTemplate} role="group" aria-labelledby=${`${base}:name`}>
    <p class="resource-template-name"><strong id=${`${base}:name`}>${name}</strong>
      <code class="small">${template.uriTemplate}</code></p>
    ${template.description ? html`<p class="muted small">${template.description}</p>` : null}
    <div class="resource-template-vars">
      ${variables.map((v) => html`<label class="inline" key=${v}>
        <span>${v}</span>
        <input class="template-var" data-var=${v} value=${values[v] ?? ""} onKeyDown=${enter}
          onInput=${(e) => setValues({ ...values, [v]: e.currentTarget.value })} />
      </label>`)}
      <button type="button" class="template-add" disabled=${!ready} onClick=${add}>${t("ui.attach.add")}</button>
    </div>
    ${refused ? html`<p class="error small" role="alert">${refused === "full" ? t("ui.attach.full", { max: MAX_ATTACHMENTS }) : t("ui.attach.duplicate")}</p>` : null}
  </div>`;
}
