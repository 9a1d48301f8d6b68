// What pages share: data loaded from the API on mount and again on demand, an
// error to show, and deleting an item after the person confirms it.

import { useEffect, useState } from "../../vendor/hooks.js";
import { del } from "../api.js";

/** `{data, setData, error, setError, reload, remove}`; `load` answers the page's data. */
export function useLoaded(load) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const reload = async () => {
    try {
      setData(await load());
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    reload();
  }, []);
  /** Deletes `path` once the person confirms `question`, then reloads. */
  const remove = async (question, path) => {
    if (!confirm(question)) return;
    try {
      await del(path);
      reload();
    } catch (e) {
      setError(e);
    }
  };
  return { data, setData, error, setError, reload, remove };
}
