// Prompts as slash commands in the message box (slash.js decides what they are): the list
// shown while the text starts with "/", its active option followed by the box's
// aria-activedescendant; and, once one is chosen, the prompt as a removable chip with an
// input per argument (the required ones marked, and refused empty when sending).

import { html } from "../html.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { promptArgs } from "./slash.js";

/** The option's element id of entry `i` in the list `id`. */
export const optionId = (id, i) => `${id}-option-${i}`;

/**
 * `loaded` is null while the prompts load, else `{groups}` (servers that failed carry their
 * `error`) or `{error}`; `entries` the matching commands; `active` the highlighted one.
 */
export function SlashList({ id, loaded, entries, active, onChoose }) {
  const failed = (loaded?.groups || []).filter((g) => g.error);
  return html`<div class="slash-popup">
    ${loaded === null ? html`<p class="muted small">${t("ui.common.loading")}</p>` : null}
    <${ErrorNote} error=${loaded?.error} />
    ${failed.map((g) => html`<p class="error small slash-error" key=${g.server.id}>
      ${t("ui.slash.server_failed", { server: g.server.name })} ${g.error.message}</p>`)}
    <ul id=${id} class="slash-list" role="listbox" aria-label=${t("ui.slash.list")}>
      ${entries.map((e, i) => html`<li id=${optionId(id, i)} key=${e.command} class="slash-item" role="option"
          aria-selected=${i === active} data-command=${e.command}
          onMouseDown=${(event) => event.preventDefault()} onClick=${() => onChoose(e)}>
        <span class="slash-command">${e.command}</span>
        ${e.prompt.title || e.prompt.description
          ? html` <span class="muted small">${e.prompt.title || e.prompt.description}</span>`
          : null}
      </li>`)}
    </ul>
    ${loaded?.groups && !entries.length ? html`<p class="muted small slash-none">${t("ui.slash.none")}</p>` : null}
  </div>`;
}

/**
 * The chosen prompt: its command (removable), then an input per argument. `missing` names
 * the required ones left empty at the last try to send.
 */
export function PromptForm({ entry, values, missing, onValues, onRemove, onEscape }) {
  const args = promptArgs(entry.prompt);
  const escape = (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    onEscape();
  };
  return html`<fieldset class="prompt-form" data-command=${entry.command} onKeyDown=${escape}>
    <legend>
      <span class="chip prompt-chosen">${entry.command}
        <button type="button" class="icon chip-remove prompt-remove" aria-label=${t("ui.slash.remove", { command: entry.command })}
          onClick=${onRemove}>×</button>
      </span>
    </legend>
    ${entry.prompt.description ? html`<p class="muted small">${entry.prompt.description}</p>` : null}
    ${args.length ? null : html`<p class="muted small prompt-ready">${t("ui.slash.ready")}</p>`}
    ${args.map((a, i) => {
      const id = `prompt-arg-${i}`;
      const bad = missing.includes(a.name);
      return html`<div class="field prompt-field" key=${a.name}>
        <label for=${id}>${a.name}${a.required ? html`<span class="required" aria-hidden="true"> *</span>` : null}</label>
        <input id=${id} class="prompt-arg" name=${a.name} data-arg=${a.name} required=${a.required}
          aria-invalid=${bad ? "true" : undefined} aria-describedby=${a.description ? `${id}-hint` : undefined}
          value=${values[a.name] ?? ""} onInput=${(e) => onValues({ ...values, [a.name]: e.currentTarget.value })} />
        ${a.description ? html`<small id=${`${id}-hint`}>${a.description}</small>` : null}
      </div>`;
    })}
  </fieldset>`;
}
