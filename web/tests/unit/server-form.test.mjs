// The server dialog's form: a stored server saved unchanged sends back what keeps it, and a
// change that would give a masked secret another meaning clears the mask instead. OAuth
// sign-in: its optional client, secret and scopes, to the body and back. Root
// folders: one per line, for every transport, checked as the API checks them. Sampling: its
// setting sent only when it is not the default (review each request, cap 1024).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import {
  MASK, MAX_ROOTS, SAMPLING_MAX_TOKENS, authTypes, bodyFrom, formFrom, samplingFrom, splitScopes, withoutStaleMasks,
} from "../../js/mcp/server-form.js";

const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

const stdio = {
  id: "files", name: "files", transport: "stdio", command: "node",
  args: ["-e", "", "console.log(1)\nconsole.log(2)", " spaced "],
  env: { TOKEN: MASK, MODE: "fast" }, secretEnv: ["TOKEN"], cwd: "/srv",
  timeout: 2.5, enabled: true, disabledTools: ["rm"], autoApprovedTools: ["ls"],
};

test("a stdio server saved unchanged keeps every field, arguments exactly", () => {
  const body = bodyFrom(formFrom(stdio));
  assert.deepEqual(body.args, stdio.args);
  assert.deepEqual(body.env, stdio.env);
  assert.deepEqual(body.secretEnv, ["TOKEN"]);
  assert.equal(body.cwd, "/srv");
  assert.equal(body.timeout, 2.5);
  assert.deepEqual(body.disabledTools, ["rm"]);
  assert.deepEqual(body.autoApprovedTools, ["ls"]);
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

const oauthServer = (auth) => ({
  id: "notes", name: "notes", transport: "streamable_http", url: "https://notes.example/mcp", auth,
});

test("OAuth sign-in is one of the kinds of authentication", () => {
  assert.deepEqual(authTypes().at(-1), ["oauth", "OAuth sign-in"]);
});

test("an OAuth server round-trips: client, masked secret and scopes come back as they were", () => {
  const auth = { type: "oauth", clientId: "switchboard", clientSecret: MASK, scopes: ["notes:read", "notes:write"] };
  const form = formFrom(oauthServer(auth));
  assert.equal(form.authType, "oauth");
  assert.equal(form.oauthClientId, "switchboard");
  assert.equal(form.authSecret, MASK);
  assert.equal(form.oauthScopes, "notes:read notes:write");
  assert.deepEqual(bodyFrom(form).auth, auth);
});

test("an OAuth server with nothing optional sends only its type", () => {
  assert.deepEqual(bodyFrom(formFrom(oauthServer({ type: "oauth" }))).auth, { type: "oauth" });
  const blank = { ...formFrom(oauthServer({ type: "oauth" })), oauthClientId: "  ", authSecret: "", oauthScopes: " , " };
  assert.deepEqual(bodyFrom(blank).auth, { type: "oauth" });
});

test("OAuth fields typed in become the body's: trimmed id, secret as typed, scopes split", () => {
  const form = {
    ...formFrom(oauthServer({ type: "none" })),
    authType: "oauth", oauthClientId: " app-1 ", authSecret: "s3cret", oauthScopes: "read, write\nadmin ,,",
  };
  assert.deepEqual(bodyFrom(form).auth, {
    type: "oauth", clientId: "app-1", clientSecret: "s3cret", scopes: ["read", "write", "admin"],
  });
});

test("scopes are separated by spaces, commas or new lines", () => {
  assert.deepEqual(splitScopes("a b,c ,  d\te"), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(splitScopes(""), []);
  assert.deepEqual(splitScopes(" , "), []);
});

test("a client secret without its client ID is refused, saying why", () => {
  const form = { ...formFrom(oauthServer({ type: "oauth" })), authSecret: "s3cret" };
  assert.throws(() => bodyFrom(form), { message: "A client secret needs the client ID it belongs to." });
});

test("a masked client secret is cleared when its client ID changes, kept otherwise", () => {
  const form = formFrom(oauthServer({ type: "oauth", clientId: "app-1", clientSecret: MASK }));
  assert.equal(withoutStaleMasks(form, { ...form, oauthScopes: "read" }).authSecret, MASK);
  assert.equal(withoutStaleMasks(form, { ...form, oauthClientId: "app-2" }).authSecret, "");
  assert.equal(withoutStaleMasks(form, { ...form, authType: "bearer" }).authSecret, "");
  // Emptying the client ID clears the mask too, so the form does not refuse a secret it hides.
  const cleared = withoutStaleMasks(form, { ...form, oauthClientId: "" });
  assert.deepEqual(bodyFrom(cleared).auth, { type: "oauth" });
});

test("a stdio server sends no auth, whatever the form held", () => {
  const form = { ...formFrom(stdio), authType: "oauth", oauthClientId: "x" };
  assert.equal("auth" in bodyFrom(form), false);
});

const withRoots = (server, roots) => ({ ...formFrom(server), roots });

test("root folders round-trip, for a stdio server and an HTTP one alike", () => {
  const roots = ["/srv/notes", "file:///srv/photos"];
  const form = formFrom({ ...stdio, roots });
  assert.equal(form.roots, "/srv/notes\nfile:///srv/photos");
  assert.deepEqual(bodyFrom(form).roots, roots);
  const http = formFrom({ ...oauthServer({ type: "none" }), roots });
  assert.deepEqual(bodyFrom(http).roots, roots);
});

test("root folders drop blank lines and surrounding whitespace", () => {
  const form = withRoots(stdio, "\n  /srv/notes  \n\n\tfile:///srv/photos\r\n   \n");
  assert.deepEqual(bodyFrom(form).roots, ["/srv/notes", "file:///srv/photos"]);
});

test("no root folders is no roots key, which clears stored ones (PUT replaces the server)", () => {
  assert.equal("roots" in bodyFrom(formFrom(stdio)), false);
  const cleared = withRoots({ ...stdio, roots: ["/srv/notes"] }, " \n ");
  assert.equal("roots" in bodyFrom(cleared), false);
});

test("a root that is neither an absolute path nor a file: URI is refused, quoted", () => {
  const form = withRoots(stdio, "/srv/notes\nnotes/drafts");
  assert.throws(() => bodyFrom(form), {
    message: "Each root folder is an absolute path (starting with /) or a file: URI; “notes/drafts” is neither.",
  });
  assert.throws(() => bodyFrom(withRoots(stdio, "https://x.example/notes")), /“https:\/\/x\.example\/notes”/);
});

test("at most 64 root folders", () => {
  assert.equal(MAX_ROOTS, 64);
  const lines = (n) => Array.from({ length: n }, (_, i) => `/srv/r${i}`).join("\n");
  assert.equal(bodyFrom(withRoots(stdio, lines(64))).roots.length, 64);
  assert.throws(() => bodyFrom(withRoots(stdio, lines(65))), { message: "A server takes at most 64 root folders." });
});

test("a server without a sampling setting shows the defaults and sends none back", () => {
  const form = formFrom(stdio);
  assert.equal(form.samplingAuto, false);
  assert.equal(form.samplingMaxTokens, "1024");
  assert.equal(SAMPLING_MAX_TOKENS, 1024);
  assert.equal("sampling" in bodyFrom(form), false);
  assert.equal("sampling" in bodyFrom({ ...form, samplingMaxTokens: " " }), false, "an empty cap is the default");
});

test("a sampling setting round-trips", () => {
  const sampling = { autoApprove: true, maxTokens: 512 };
  const form = formFrom({ ...stdio, sampling });
  assert.equal(form.samplingAuto, true);
  assert.equal(form.samplingMaxTokens, "512");
  assert.deepEqual(bodyFrom(form).sampling, sampling);
});

test("sampling is sent when answered without asking, or when the cap is not 1024", () => {
  const form = formFrom(stdio);
  assert.deepEqual(bodyFrom({ ...form, samplingAuto: true }).sampling, { autoApprove: true, maxTokens: 1024 });
  assert.deepEqual(bodyFrom({ ...form, samplingMaxTokens: "4096" }).sampling, { autoApprove: false, maxTokens: 4096 });
  assert.deepEqual(bodyFrom({ ...form, samplingMaxTokens: "1" }).sampling, { autoApprove: false, maxTokens: 1 });
  assert.deepEqual(bodyFrom({ ...form, samplingMaxTokens: "32768" }).sampling, { autoApprove: false, maxTokens: 32768 });
  // Turned back to the defaults, the key goes: PUT then clears the stored setting.
  const back = { ...formFrom({ ...stdio, sampling: { autoApprove: true, maxTokens: 10 } }), samplingAuto: false, samplingMaxTokens: "1024" };
  assert.equal(samplingFrom(back), null);
  assert.equal("sampling" in bodyFrom(back), false);
});

test("a sampling cap outside 1..32768 or not whole is refused, saying why", () => {
  const form = formFrom(stdio);
  for (const cap of ["0", "32769", "1.5", "-3", "many"]) {
    assert.throws(() => bodyFrom({ ...form, samplingMaxTokens: cap }), {
      message: "The token cap for sampling is a whole number from 1 to 32768.",
    }, cap);
  }
});
