// The server dialog's form: a stored server saved unchanged sends back what keeps it, and a
// change that would give a masked secret another meaning clears the mask instead.

import { test } from "node:test";
import assert from "node:assert/strict";
import { MASK, bodyFrom, formFrom, withoutStaleMasks } from "../../js/mcp/server-form.js";

const stdio = {
  id: "files", name: "files", transport: "stdio", command: "node",
  args: ["-e", "", "console.log(1)\nconsole.log(2)", " spaced "],
  env: { TOKEN: MASK, MODE: "fast" }, secret_env: ["TOKEN"], cwd: "/srv",
  timeout: 2.5, enabled: true, disabled_tools: ["rm"], auto_approved_tools: ["ls"],
};

test("a stdio server saved unchanged keeps every field, arguments exactly", () => {
  const body = bodyFrom(formFrom(stdio));
  assert.deepEqual(body.args, stdio.args);
  assert.deepEqual(body.env, stdio.env);
  assert.deepEqual(body.secret_env, ["TOKEN"]);
  assert.equal(body.cwd, "/srv");
  assert.equal(body.timeout, 2.5);
  assert.deepEqual(body.disabled_tools, ["rm"]);
  assert.deepEqual(body.auto_approved_tools, ["ls"]);
});

test("edited arguments are one per line", () => {
  const form = { ...formFrom(stdio), args: "a\n\n b \nc", argsEdited: true };
  assert.deepEqual(bodyFrom(form).args, ["a", "b", "c"]);
});

test("an HTTP server saved unchanged sends its masked secrets back masked", () => {
  const http = {
    id: "r", name: "r", transport: "streamable_http", url: "https://x.example/mcp",
    headers: { "X-Team": MASK }, auth: { type: "bearer", token: MASK },
  };
  const body = bodyFrom(formFrom(http));
  assert.deepEqual(body.auth, { type: "bearer", token: MASK });
  assert.deepEqual(body.headers, { "X-Team": MASK });
});

test("switching the auth type, renaming or unmarking a masked value clears the mask", () => {
  const form = formFrom({
    id: "r", name: "r", transport: "streamable_http", url: "https://x.example/mcp",
    headers: { "X-Team": MASK }, auth: { type: "bearer", token: MASK },
  });
  assert.equal(withoutStaleMasks(form, { ...form, authType: "api_key" }).authSecret, "");
  assert.equal(withoutStaleMasks(form, { ...form, name: "renamed" }).authSecret, MASK);
  const renamed = withoutStaleMasks(form, { ...form, headers: [{ name: "X-Other", value: MASK }] });
  assert.equal(renamed.headers[0].value, "");
  const env = formFrom(stdio);
  const unmarked = env.env.map((r) => (r.name === "TOKEN" ? { ...r, secret: false } : r));
  const after = withoutStaleMasks(env, { ...env, env: unmarked });
  assert.equal(after.env.find((r) => r.name === "TOKEN").value, "");
  assert.equal(after.env.find((r) => r.name === "MODE").value, "fast");
});
