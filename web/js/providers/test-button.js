// A provider's Test: asks for its models and says what came of it, the models it lists or
// what failed, in words (the API's error: the name does not resolve, nothing listens at the
// port, no answer in time, the key was refused, nothing at the path).

import { html } from "../html.js";
import { useEffect, useState } from "../../vendor/hooks.js";
import { t } from "../i18n.js";
import { ErrorNote } from "../ui/error-note.js";
import { modelSummary } from "./models.js";

/** The outcome of a listing that answered `models`. */
export function reachedText(models) {
  if (models.length === 0) return t("ui.providers.test_ok_none");
  const key = models.length === 1 ? "ui.providers.test_ok_one" : "ui.providers.test_ok_many";
  return t(key, { count: models.length, models: modelSummary(models) });
}

/**
 * `list()` answers the models (or throws the API's error); `onError(e)` may take an error
 * over (answering true), as the dialog does for a key that would go to another origin. Each
 * new `again` (a number above 0) runs the test once more, as a click would.
 */
export function TestButton({ list, onError, again = 0 }) {
  const [state, setState] = useState({ busy: false, models: null, error: null });
  const test = async () => {
    setState({ busy: true, models: null, error: null });
    try {
      const models = await list();
      setState({ busy: false, models, error: null });
    } catch (e) {
      const taken = onError ? onError(e) : false;
      setState({ busy: false, models: null, error: taken ? null : e });
    }
  };
  useEffect(() => {
    if (again > 0) test();
  }, [again]);
  return html`<span class="provider-test">
    <button type="button" onClick=${test} disabled=${state.busy} aria-busy=${state.busy}>
      ${state.busy ? t("ui.providers.testing") : t("ui.providers.test")}</button>
    ${state.models
      ? html`<p class="ok small" role="status" data-role="test-outcome">${reachedText(state.models)}</p>`
      : null}
    <${ErrorNote} error=${state.error} />
  </span>`;
}
