// OAuth sign-in on the settings page: which of Sign in and Sign out a server's card
// offers for its status, and what the page says when the callback's redirect brings the
// browser back (`?signedIn=ID`, `?signInFailed=ID&reason=CODE`), the query then taken away.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createI18n, install } from "../../js/i18n.js";
import {
  openableUrl, signInActions, signInNotice, signInReturn, usesOAuth, withoutSignInQuery,
} from "../../js/mcp/sign-in.js";

const english = JSON.parse(readFileSync(new URL("../../../locales/en-US.json", import.meta.url), "utf8"));
const i18n = createI18n({ load: async () => english, storage: null, remember: async () => {} });
install(i18n);
await i18n.start(["en-US"]);

const notes = { id: "srv-1", name: "notes", transport: "streamable_http", url: "https://n.example/mcp", auth: { type: "oauth" } };
const bearer = { ...notes, id: "srv-2", name: "plain", auth: { type: "bearer", token: "********" } };
const SERVERS = [notes, bearer];

test("only an HTTP server with OAuth sign-in uses it", () => {
  assert.equal(usesOAuth(notes), true);
  assert.equal(usesOAuth({ ...notes, transport: "sse" }), true);
  assert.equal(usesOAuth(bearer), false);
  assert.equal(usesOAuth({ ...notes, transport: "stdio" }), false);
  assert.equal(usesOAuth({ id: "x", transport: "sse" }), false);
});

test("needs_sign_in offers Sign in as the primary action", () => {
  assert.deepEqual(signInActions(notes, "needs_sign_in"), { signIn: true, signOut: false, needed: true });
});

test("a connected OAuth server offers Sign out; one not connected offers Sign in", () => {
  assert.deepEqual(signInActions(notes, "connected"), { signIn: false, signOut: true, needed: false });
  for (const state of ["disconnected", "error"]) {
    assert.deepEqual(signInActions(notes, state), { signIn: true, signOut: false, needed: false }, state);
  }
  assert.deepEqual(signInActions(notes, "connecting"), { signIn: false, signOut: false, needed: false });
});

test("servers without OAuth sign-in offer neither; one on a node signs in like any", () => {
  for (const state of ["needs_sign_in", "connected", "disconnected"]) {
    assert.deepEqual(signInActions(bearer, state), { signIn: false, signOut: false, needed: false });
    assert.deepEqual(signInActions({ ...notes, node: "edge" }, state), signInActions(notes, state));
  }
});

test("the page's query says how a sign-in went", () => {
  assert.deepEqual(signInReturn("?signedIn=srv-1"), { serverId: "srv-1", ok: true });
  assert.deepEqual(signInReturn("?signInFailed=srv-1&reason=MCP_AUTH_FAILED"),
    { serverId: "srv-1", ok: false, reason: "MCP_AUTH_FAILED" });
  assert.deepEqual(signInReturn("?signInFailed=srv-1"), { serverId: "srv-1", ok: false, reason: "" });
  // Ids are decoded as the callback encoded them.
  assert.deepEqual(signInReturn("?signedIn=my+server%2F1"), { serverId: "my server/1", ok: true });
  // A failure named wins over a success.
  assert.equal(signInReturn("?signedIn=a&signInFailed=b&reason=X").ok, false);
});

test("a page not reached from a sign-in has nothing to say", () => {
  for (const search of ["", "?", "?tab=2", "?signedIn=", "?signInFailed=&reason=MCP_AUTH_FAILED", undefined]) {
    assert.equal(signInReturn(search), null, String(search));
  }
});

test("the sign-in's parameters leave the address, others stay", () => {
  assert.equal(withoutSignInQuery("?signedIn=srv-1"), "");
  assert.equal(withoutSignInQuery("?signInFailed=srv-1&reason=MCP_TIMEOUT"), "");
  assert.equal(withoutSignInQuery("?tab=2&signedIn=srv-1"), "?tab=2");
  assert.equal(withoutSignInQuery(""), "");
});

test("success names the server, by its id until the list is loaded", () => {
  assert.deepEqual(signInNotice({ serverId: "srv-1", ok: true }, SERVERS), { ok: true, text: "Signed in to notes.", code: "" });
  assert.equal(signInNotice({ serverId: "srv-1", ok: true }, null).text, "Signed in to srv-1.");
  assert.equal(signInNotice({ serverId: "gone", ok: true }, SERVERS).text, "Signed in to gone.");
});

test("a failure's reason picks its message, with a generic one for other reasons", () => {
  const failed = (reason) => signInNotice({ serverId: "srv-1", ok: false, reason }, SERVERS);
  assert.deepEqual(failed("MCP_AUTH_FAILED"), {
    ok: false, code: "MCP_AUTH_FAILED",
    text: "The sign-in to notes was refused or not finished. Try again from its card.",
  });
  assert.match(failed("MCP_UNREACHABLE").text, /could not reach the authorization server of notes/);
  assert.match(failed("MCP_TIMEOUT").text, /authorization server of notes did not answer in time/);
  assert.match(failed("DESTINATION_NOT_ALLOWED").text, /may not reach/);
  for (const reason of ["INTERNAL_ERROR", "", "SOMETHING_NEW"]) {
    assert.equal(failed(reason).text, "Signing in to notes did not work. Try again from its card.", reason);
    assert.equal(failed(reason).code, reason);
  }
});

test("every failure message has its Chinese text", async () => {
  const chinese = JSON.parse(readFileSync(new URL("../../../locales/zh-Hans.json", import.meta.url), "utf8"));
  const zh = createI18n({ load: async () => chinese, storage: null, remember: async () => {} });
  install(zh);
  try {
    await zh.start(["zh-CN"]);
    for (const reason of ["MCP_AUTH_FAILED", "MCP_UNREACHABLE", "MCP_TIMEOUT", "DESTINATION_NOT_ALLOWED", "X"]) {
      const { text } = signInNotice({ serverId: "srv-1", ok: false, reason }, SERVERS);
      assert.ok(!text.startsWith("ui."), text);
      assert.match(text, /notes/);
    }
    assert.equal(signInNotice({ serverId: "srv-1", ok: true }, SERVERS).text, "已登录 notes。");
  } finally {
    install(i18n);
  }
});

test("only an http(s) authorization address is opened", () => {
  assert.equal(openableUrl("https://auth.example/authorize?client_id=x"), true);
  assert.equal(openableUrl("http://127.0.0.1:9000/authorize"), true);
  assert.equal(openableUrl("javascript:alert(1)"), false);
  assert.equal(openableUrl("data:text/html,hi"), false);
  assert.equal(openableUrl("not a url"), false);
  assert.equal(openableUrl(undefined), false);
});
