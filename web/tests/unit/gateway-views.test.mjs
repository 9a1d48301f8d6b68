// The MCP gateway's views in the settings page: the snippets each client takes (Claude
// Desktop through this machine's `switchboard mcp --stdio --view` or through mcp-remote,
// Cursor and VS Code over HTTP with a bearer token), and the view form: a saved view read back into the form and written
// out unchanged, the three ways of naming tools, tool checkboxes, an assistant instead of
// servers, which calls run as tasks, search exposure with pinned servers, and what must
// change before saving.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MCP_REMOTE, TOKEN_PLACEHOLDER, snippets, viewUrl } from "../../js/gateway/snippets.js";
import { NAME_RULE, bodyFrom, formFrom, problems, serverPinned, summary, withRow, withServerPin, withTool } from "../../js/gateway/view-form.js";

const SERVERS = [
  { id: "files", name: "Files" },
  { id: "github", name: "GitHub" },
  { id: "weather", name: "Weather" },
];

const byClient = (list) => Object.fromEntries(list.map((s) => [s.client, s]));

test("the snippets are the clients' own configuration files, whole", () => {
  const stdio = {
    command: "/opt/switchboard/bin/switchboard",
    args: ["--data-dir", "/srv/switchboard-data", "--user", "ada", "mcp", "--stdio"],
  };
  const all = byClient(snippets({ origin: "https://sb.example.com/", name: "desktop", token: "sb_secret", stdio }));
  assert.deepEqual(Object.keys(all), ["claude", "cursor", "vscode"]);
  // The command and the data directory are absolute and the person named, so Claude
  // Desktop can start it from any folder and sees what the browser sees.
  assert.deepEqual(JSON.parse(all.claude.text), {
    mcpServers: {
      switchboard: {
        command: "/opt/switchboard/bin/switchboard",
        args: ["--data-dir", "/srv/switchboard-data", "--user", "ada", "mcp", "--stdio", "--view", "desktop"],
      },
    },
  });
  assert.equal(all.claude.launch, "stdio");
  assert.ok(!all.claude.text.includes("Bearer"));
  assert.equal(all.claude.file, "claude_desktop_config.json");
  assert.deepEqual(JSON.parse(all.cursor.text), {
    mcpServers: {
      switchboard: { url: "https://sb.example.com/mcp/v/desktop", headers: { Authorization: "Bearer sb_secret" } },
    },
  });
  assert.equal(all.cursor.file, ".cursor/mcp.json");
  assert.deepEqual(JSON.parse(all.vscode.text), {
    servers: {
      switchboard: {
        type: "http",
        url: "https://sb.example.com/mcp/v/desktop",
        headers: { Authorization: "Bearer sb_secret" },
      },
    },
  });
  assert.equal(all.vscode.file, ".vscode/mcp.json");
  // Pretty-printed, to paste as it is.
  assert.match(all.vscode.text, /\n {2}"servers"/);
});

test("without a token the HTTP snippets carry a placeholder", () => {
  const all = byClient(snippets({ origin: "http://127.0.0.1:8080", name: "cursor-1" }));
  assert.equal(JSON.parse(all.cursor.text).mcpServers.switchboard.headers.Authorization, `Bearer ${TOKEN_PLACEHOLDER}`);
  assert.equal(JSON.parse(all.vscode.text).servers.switchboard.url, "http://127.0.0.1:8080/mcp/v/cursor-1");
  assert.equal(viewUrl("http://h:1//", "a_b-c"), "http://h:1/mcp/v/a_b-c");
});

test("without this machine's command, Claude Desktop reaches the view through a pinned mcp-remote", () => {
  const all = byClient(snippets({ origin: "https://sb.example.com", name: "desktop", token: "sb_secret" }));
  assert.equal(all.claude.launch, "remote");
  assert.deepEqual(JSON.parse(all.claude.text), {
    mcpServers: {
      switchboard: {
        command: "npx",
        args: ["-y", MCP_REMOTE, "https://sb.example.com/mcp/v/desktop", "--header", "Authorization:${SWITCHBOARD_AUTH}"],
        env: { SWITCHBOARD_AUTH: "Bearer sb_secret" },
      },
    },
  });
  assert.match(MCP_REMOTE, /^mcp-remote@\d+\.\d+\.\d+$/);
});

test("a saved view reads into the form and writes back unchanged", () => {
  const saved = {
    name: "desktop",
    description: "for Claude",
    servers: [
      { serverId: "files", tools: ["read", "write"], prefix: "" },
      { serverId: "github", prefix: "gh_" },
      { serverId: "weather" },
    ],
  };
  const form = formFrom({ id: "v1", createdAt: 1, ...saved }, SERVERS);
  assert.deepEqual(
    form.servers.map((r) => [r.serverId, r.name, r.included, r.allTools, r.naming, r.prefix]),
    [
      ["files", "Files", true, false, "own", ""],
      ["github", "GitHub", true, true, "prefix", "gh_"],
      ["weather", "Weather", true, true, "template", ""],
    ],
  );
  assert.deepEqual(bodyFrom(form), saved);
  assert.deepEqual(problems(form), []);
});

test("a server the view names that no longer exists keeps its row", () => {
  const form = formFrom({ name: "v", servers: [{ serverId: "gone" }] }, SERVERS);
  assert.equal(form.servers.length, 4);
  assert.deepEqual(form.servers.at(-1), {
    serverId: "gone", name: "gone", included: true, allTools: true, tools: [], naming: "template", prefix: "",
  });
});

test("a new view starts empty and says what it needs", () => {
  const form = formFrom(null, SERVERS);
  assert.equal(form.mode, "servers");
  assert.ok(form.servers.every((r) => !r.included && r.allTools && r.naming === "template"));
  assert.deepEqual(
    problems(form).map((p) => p.key),
    ["ui.gateway.name_rule", "ui.gateway.pick_server"],
  );
});

test("checked tools, names and prefixes become the body; unchecked servers are left out", () => {
  let form = { ...formFrom(null, SERVERS), name: " claude ", description: "  " };
  form = withRow(form, "github", { included: true, allTools: false });
  assert.deepEqual(problems(form).map((p) => [p.field, p.key]), [["tools-github", "ui.gateway.pick_tool"]]);
  form = withTool(form, "github", "search", true);
  form = withTool(form, "github", "issues", true);
  form = withTool(form, "github", "search", true); // twice is once
  form = withTool(form, "github", "prs", true);
  form = withTool(form, "github", "prs", false);
  form = withRow(form, "github", { naming: "prefix", prefix: "gh." });
  assert.deepEqual(problems(form).map((p) => [p.field, p.params]), [["prefix-github", { server: "GitHub" }]]);
  form = withRow(form, "github", { prefix: "gh_" });
  form = withRow(form, "files", { included: true, naming: "own" });
  assert.deepEqual(problems(form), []);
  assert.deepEqual(bodyFrom(form), {
    name: "claude",
    servers: [
      { serverId: "files", prefix: "" },
      { serverId: "github", tools: ["issues", "search"], prefix: "gh_" },
    ],
  });
});

test("a view may follow an assistant instead; its servers are then not sent", () => {
  let form = formFrom({ name: "helper", assistantId: "a1", servers: [] }, SERVERS);
  assert.equal(form.mode, "assistant");
  assert.deepEqual(bodyFrom(form), { name: "helper", assistantId: "a1" });
  form = withRow({ ...form, assistantId: "" }, "files", { included: true });
  assert.deepEqual(problems(form).map((p) => p.key), ["ui.gateway.pick_assistant"]);
  assert.deepEqual(bodyFrom({ ...form, mode: "servers" }).servers, [{ serverId: "files" }]);
});

test("which calls run as tasks is read back and written only when it is not the default", () => {
  const saved = { name: "long", servers: [{ serverId: "files" }], tasks: { runAsTask: "slow", slowAfterSecs: 20 } };
  let form = formFrom(saved, SERVERS);
  assert.deepEqual([form.runAsTask, form.slowAfterSecs], ["slow", "20"]);
  assert.deepEqual(bodyFrom(form), saved);
  form = { ...form, slowAfterSecs: "" };
  assert.deepEqual(bodyFrom(form).tasks, { runAsTask: "slow" });
  for (const bad of ["0", "86401", "1.5", "soon"]) {
    assert.deepEqual(problems({ ...form, slowAfterSecs: bad }).map((p) => p.key), ["ui.gateway.slow_after_rule"], bad);
  }
  // The threshold of `slow` is not sent with another choice.
  assert.deepEqual(bodyFrom({ ...form, runAsTask: "always", slowAfterSecs: "20" }).tasks, { runAsTask: "always" });
  assert.deepEqual(problems({ ...form, runAsTask: "always", slowAfterSecs: "soon" }), []);
  const never = formFrom({ name: "short", servers: [{ serverId: "files" }] }, SERVERS);
  assert.equal(never.runAsTask, "never");
  assert.equal(bodyFrom(never).tasks, undefined);
  // A view that follows an assistant keeps its setting too.
  assert.deepEqual(bodyFrom({ ...formFrom({ name: "helper", assistantId: "a1", tasks: { runAsTask: "always" } }, SERVERS) }), {
    name: "helper",
    tasks: { runAsTask: "always" },
    assistantId: "a1",
  });
});

test("search exposure and its pins are read back, and sent only in search mode", () => {
  const saved = {
    name: "big",
    toolExposure: "search",
    servers: [{ serverId: "files", tools: ["read", "write"] }, { serverId: "github" }],
    pinnedTools: [{ serverId: "files", tool: "read" }, { serverId: "github" }],
  };
  let form = formFrom(saved, SERVERS);
  assert.equal(form.exposure, "search");
  assert.ok(serverPinned(form, "github") && !serverPinned(form, "files"));
  assert.deepEqual(bodyFrom(form), saved);
  // Pinning a server's tools, then unpinning them, keeps its single-tool pins.
  form = withServerPin(form, "files", true);
  assert.deepEqual(bodyFrom(form).pinnedTools, [...saved.pinnedTools, { serverId: "files" }]);
  form = withServerPin(form, "files", false);
  assert.deepEqual(bodyFrom(form).pinnedTools, saved.pinnedTools);
  // A pin of a server or tool the view no longer offers is not sent (the server would refuse it).
  let narrowed = withTool(form, "files", "read", false);
  narrowed = withRow(narrowed, "github", { included: false });
  assert.equal(bodyFrom(narrowed).pinnedTools, undefined);
  // Every tool: neither the exposure nor pins are sent.
  const all = bodyFrom({ ...form, exposure: "all" });
  assert.equal(all.toolExposure, undefined);
  assert.equal(all.pinnedTools, undefined);
  const plain = formFrom({ name: "v", servers: [{ serverId: "files" }] }, SERVERS);
  assert.equal(plain.exposure, "all");
  assert.deepEqual(bodyFrom(plain), { name: "v", servers: [{ serverId: "files" }] });
  assert.deepEqual(problems(form), []);
});

test("names follow the server's rule", () => {
  for (const good of ["a", "claude-desktop_2", "x".repeat(64)]) assert.ok(NAME_RULE.test(good), good);
  for (const bad of ["", "Claude", "my view", "a/b", "x".repeat(65), "é"]) assert.ok(!NAME_RULE.test(bad), bad);
});

test("a view's summary names its assistant or its servers", () => {
  assert.deepEqual(summary({ assistantId: "a1" }, SERVERS, [{ id: "a1", name: "Helper" }]), {
    key: "ui.gateway.follows",
    params: { name: "Helper" },
  });
  assert.deepEqual(summary({ servers: [{ serverId: "files" }, { serverId: "gone" }] }, SERVERS, []), {
    key: "ui.gateway.offers",
    params: { servers: "Files, gone" },
  });
});

test("every text the gateway section asks for is in both languages", () => {
  const root = new URL("../../../", import.meta.url);
  const read = (path) => readFileSync(new URL(path, root), "utf8");
  const sources = ["views-panel.js", "view-edit-modal.js", "view-connect.js", "view-form.js"].map((f) => read(`web/js/gateway/${f}`));
  const keys = new Set(sources.flatMap((s) => [...s.matchAll(/"(ui\.gateway\.[a-z_]+)"/g)].map((m) => m[1])));
  for (const client of ["claude", "cursor", "vscode"]) keys.add(`ui.gateway.client_${client}`);
  assert.ok(keys.size > 30, `${keys.size}`);
  for (const locale of ["en-US", "zh-Hans"]) {
    const texts = JSON.parse(read(`locales/${locale}.json`));
    for (const key of keys) assert.ok(texts[key], `${locale} lacks ${key}`);
  }
});
