// Resources attached to a message: the servers a conversation takes them from, a resource
// template filled in (RFC 6570, level 1 and reserved `{+var}`), the list of chosen ones (each
// once, at most 8), and a stored message's attachments.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_ATTACHMENTS, conversationServers, expandTemplate, isAttached, storedAttachments, templateVariables, unfilled,
  withAttachment, withoutAttachment,
} from "../../js/chat/attachments.js";

const servers = [
  { id: "everything", name: "everything", enabled: true },
  { id: "files", name: "Files", enabled: true },
  { id: "off", name: "Off", enabled: false },
  { id: "time", name: "Time" },
];

test("an assistant's servers, in its order; without one, every server that is on", () => {
  assert.deepEqual(conversationServers({ serverIds: ["time", "everything"] }, servers), [
    { id: "time", name: "Time" },
    { id: "everything", name: "everything" },
  ]);
  assert.deepEqual(conversationServers({ serverIds: ["off", "gone"] }, servers), [], "switched off or deleted");
  assert.deepEqual(conversationServers({}, servers), [], "an assistant without servers");
  assert.deepEqual(conversationServers(null, servers).map((s) => s.id), ["everything", "files", "time"]);
  assert.deepEqual(conversationServers(null, null), []);
});

test("a template's variables, each once, in order", () => {
  assert.deepEqual(templateVariables("test://static/resource/{id}"), ["id"]);
  assert.deepEqual(templateVariables("db://{schema}/{table}/{schema}"), ["schema", "table"]);
  assert.deepEqual(templateVariables("file:///{+path}"), ["path"]);
  assert.deepEqual(templateVariables("plain://no-vars"), []);
  assert.deepEqual(templateVariables(undefined), []);
});

test("a template expands with its values percent-encoded", () => {
  assert.equal(expandTemplate("test://static/resource/{id}", { id: "42" }), "test://static/resource/42");
  assert.equal(expandTemplate("db://{schema}/{table}", { schema: "a b", table: "x/y?z" }), "db://a%20b/x%2Fy%3Fz");
  assert.equal(expandTemplate("q://{v}", { v: "é&=" }), "q://%C3%A9%26%3D");
  assert.equal(expandTemplate("q://{v}/{w}", { v: "1" }), "q://1/", "an undefined variable expands to nothing");
  assert.equal(expandTemplate("file:///{+path}", { path: "srv/notes/a b.md" }), "file:///srv/notes/a%20b.md", "reserved keeps /");
  assert.equal(expandTemplate("file:///{+path}", { path: "a%20b" }), "file:///a%20b", "a reserved expansion keeps a %-triplet");
});

test("a template is ready once every variable has a value", () => {
  assert.deepEqual(unfilled("db://{schema}/{table}", { schema: "x", table: " " }), ["table"]);
  assert.deepEqual(unfilled("db://{schema}/{table}", { schema: "x", table: "y" }), []);
  assert.deepEqual(unfilled("plain://x", {}), []);
});

const item = (n, serverId = "everything") => ({ serverId, serverName: serverId, uri: `test://static/resource/${n}`, name: `Resource ${n}` });

test("a resource is attached once; another server's of the same URI is another", () => {
  const { list } = withAttachment([], item(1));
  assert.equal(list.length, 1);
  const again = withAttachment(list, item(1));
  assert.equal(again.refused, "duplicate");
  assert.equal(again.list, list, "unchanged");
  assert.equal(withAttachment(list, item(1, "files")).list.length, 2);
  assert.equal(isAttached(list, "everything", item(1).uri), true);
  assert.equal(isAttached(list, "files", item(1).uri), false);
});

test("at most 8 resources; a ninth is refused", () => {
  assert.equal(MAX_ATTACHMENTS, 8);
  let list = [];
  for (let n = 1; n <= 8; n++) list = withAttachment(list, item(n)).list;
  assert.equal(list.length, 8);
  const ninth = withAttachment(list, item(9));
  assert.equal(ninth.refused, "full");
  assert.equal(ninth.list.length, 8);
});

test("a chip removed takes only its resource off", () => {
  const list = [item(1), item(2), item(1, "files")];
  assert.deepEqual(withoutAttachment(list, "everything", item(1).uri), [item(2), item(1, "files")]);
});

test("a stored message's attachments: only well-formed ones", () => {
  const a = { serverId: "everything", serverName: "everything", uri: "test://x", name: "x", text: "hi", readAt: "2025-01-01T00:00:00Z" };
  assert.deepEqual(storedAttachments({ metadata: { attachments: [a, null, { name: "no uri" }] } }), [a]);
  assert.deepEqual(storedAttachments({ metadata: {} }), []);
  assert.deepEqual(storedAttachments({}), []);
});
