// "Add from catalogue" on the settings page: the ready servers of GET /api/catalogue, each
// with its description, launch and tools, and a notice when its launcher (npx, uvx) is missing
// on the server's machine; "Set up" opens a form for the settings it needs (a
// secret typed masked), and "Add" creates the server through POST /api/catalogue/{name}/add,
// which holds it to the same rules as a server added by hand.

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { get, post, seg } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { TextField } from "../ui/fields.js";
import {
  bodyFrom, fieldType, formFor, launcherNotice, launchLine, missing, sourceLabel,
} from "./catalogue-form.js";

export function CataloguePanel({ onAdded }) {
  const [entries, setEntries] = useState(null);
  const [open, setOpen] = useState(null); // the entry being set up
  const [added, setAdded] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get("/api/catalogue").then(setEntries, setError);
  }, []);

  return html`<section class="card catalogue" aria-labelledby="catalogue-title">
    <h2 id="catalogue-title">${t("ui.catalogue.title")}</h2>
    <p class="muted">${t("ui.catalogue.intro")}</p>
    <${ErrorNote} error=${error} />
    ${added ? html`<p role="status">${t("ui.catalogue.added", { name: added })}</p>` : null}
    <ul class="catalogue-entries">
      ${(entries || []).map((entry) => html`<li key=${entry.name} data-entry=${entry.name}>
        <div class="catalogue-head">
          <strong>${entry.title}</strong>
          <span class="badge">${sourceLabel(entry.source)}</span>
          <button type="button" aria-expanded=${open?.name === entry.name}
            onClick=${() => { setAdded(null); setOpen(open?.name === entry.name ? null : entry); }}>
            ${t("ui.catalogue.set_up")}</button>
        </div>
        <p class="small">${entry.description}</p>
        <p class="small muted"><code>${launchLine(entry)}</code></p>
        ${entry.missingLauncher
          ? html`<p class="small warning" data-role="launcher-missing">${launcherNotice(entry)}</p>`
          : null}
        <p class="small muted">${t("ui.catalogue.tools", { tools: entry.tools.join(", ") })}</p>
        ${open?.name === entry.name
          ? html`<${EntryForm} entry=${entry}
              onAdded=${(server) => { setOpen(null); setAdded(server.name); onAdded(server); }} />`
          : null}
      </li>`)}
    </ul>
  </section>`;
}

function EntryForm({ entry, onAdded }) {
  const [form, setForm] = useState(() => formFor(entry));
  const [error, setError] = useState(null);
  const [adding, setAdding] = useState(false);
  const id = (name) => `catalogue-${entry.name}-${name}`;
  const setValue = (name, value) => setForm((f) => ({ ...f, values: { ...f.values, [name]: value } }));

  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    const blank = missing(entry, form);
    if (blank.length) {
      setError({ code: "VALIDATION_ERROR", message: t("ui.catalogue.missing", { labels: blank.join(", ") }) });
      return;
    }
    setAdding(true);
    try {
      onAdded(await post(`/api/catalogue/${seg(entry.name)}/add`, bodyFrom(entry, form)));
    } catch (e) {
      setError(e);
    } finally {
      setAdding(false);
    }
  };

  // The form names what is missing itself, in the page's language (no browser bubble).
  return html`<form class="catalogue-form" novalidate aria-label=${t("ui.catalogue.setup_title", { title: entry.title })} onSubmit=${submit}>
    <${TextField} id=${id("name")} label=${t("ui.catalogue.server_name")} required value=${form.name}
      onInput=${(v) => setForm((f) => ({ ...f, name: v }))} />
    ${(entry.settings || []).map((setting) => html`<${TextField} key=${setting.name} id=${id(setting.name)}
      label=${setting.required ? setting.label : `${setting.label} ${t("ui.catalogue.optional")}`}
      type=${fieldType(setting.kind)} required=${setting.required} value=${form.values[setting.name]}
      hint=${setting.kind === "secret" ? t("ui.server.secret_hint") : setting.description}
      onInput=${(v) => setValue(setting.name, v)} />`)}
    <${ErrorNote} error=${error} />
    <div class="actions">
      <button type="submit" class="primary" disabled=${adding}>
        ${adding ? t("ui.catalogue.adding") : t("ui.catalogue.add")}</button>
    </div>
  </form>`;
}
