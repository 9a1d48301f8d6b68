// Tool nodes (seed 002's ToolsSection / MCPToolConfig): an assistant declares a variable,
// gets a node on the demo server whose echo takes `text` from that variable and `steps` as
// a fixed value, and the node is run from the editor with sample variables (the resolved
// arguments show both). Then a chat with the assistant whose conversation sets the variable
// in the variables panel: the model calls echo without `text`, the call is approved, and the
// tool answers with the conversation's value (web_ui.rs checks what the model saw and got).

import { assert, assertLabelled, callStatus, run, screenshot, signIn, toolCall } from "./harness.mjs";

await run(async (page) => {
  await signIn(page, "/assistants");

  // The assistant, with one declared variable.
  await page.getByRole("button", { name: "Add assistant" }).click();
  let dialog = page.getByRole("dialog", { name: "Add an assistant" });
  await dialog.getByLabel("Name").fill("Greeter");
  await dialog.getByLabel("System prompt").fill("You greet people.");
  await dialog.getByLabel("Tool mode").selectOption("native");
  await dialog.getByText("Save the assistant first to give it tool nodes.").waitFor();
  await dialog.getByRole("button", { name: "Add variable" }).click();
  await dialog.getByLabel("Variable 1 name").fill("greeting");
  await dialog.getByLabel("Variable 1 type").selectOption("string");
  await dialog.getByLabel("Variable 1 default").fill("Hello");
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  await dialog.waitFor({ state: "detached" });

  // Its Tools section: a node on the demo server.
  await page.getByRole("article", { name: "Greeter" }).getByRole("button", { name: "Edit" }).click();
  dialog = page.getByRole("dialog", { name: "Edit Greeter" });
  assert.equal(await dialog.getByLabel("Variable 1 name").inputValue(), "greeting", "the variable was stored");
  await dialog.getByRole("button", { name: "Add tool node" }).click();
  const editor = dialog.getByRole("region", { name: "Tool node" });
  await editor.getByLabel("Node name").fill("Greet");
  await editor.getByLabel("MCP server").selectOption({ label: "demo" });
  await editor.getByLabel("echo", { exact: true }).check();
  const echo = editor.locator('.node-tool[data-tool="echo"]');

  // `text` from a variable, picked from the built-ins and the assistant's.
  await echo.getByLabel("How text is filled").selectOption("variable");
  const picker = echo.locator('[data-param="text"]').getByLabel("Variable");
  const offered = await picker.locator("option").allInnerTexts();
  for (const name of ["user.id", "user.name", "conversation.id", "now", "greeting"]) {
    assert.ok(offered.some((o) => o.startsWith(name)), `${name} is offered: ${offered}`);
  }
  await picker.selectOption("greeting");

  // `steps` a fixed value, typed in the parameter's own form; a bad one is refused here.
  await echo.getByLabel("How steps is filled").selectOption("literal");
  const steps = echo.locator('[data-param="steps"] input[data-kind="integer"]');
  await steps.fill("1.5");
  await editor.getByRole("button", { name: "Save node" }).click();
  await editor.getByText("selectedTools[0].parameterMappings.steps").waitFor();
  await steps.fill("1");
  await editor.getByLabel("Retry on error (only failures safe to repeat)").check();
  await editor.getByLabel("Max retries").fill("2");
  await editor.getByLabel("Timeout (ms)").fill("20000");
  await editor.getByRole("button", { name: "Save node" }).click();

  // Saved: listed, and runnable with sample variables.
  await dialog.getByRole("listitem", { name: "Greet" }).waitFor();
  const runForm = editor.getByRole("form", { name: "Run Greet" });
  const vars = runForm.getByLabel("Sample variables (JSON)");
  assert.deepEqual(JSON.parse(await vars.inputValue()), { greeting: "Hello" }, "prefilled with the defaults");
  assert.equal(await runForm.locator('[name="text"], [name="steps"]').count(), 0, "mapped parameters are not asked for");
  await vars.fill('{"greeting": "Hi there"}');
  await runForm.getByRole("button", { name: "Run", exact: true }).click();
  const resolved = runForm.locator('[data-role="resolved-arguments"]');
  await resolved.waitFor();
  const sent = JSON.parse(await resolved.innerText());
  assert.equal(sent.text, "Hi there");
  assert.equal(sent.steps, 1);
  assert.match(await runForm.locator('[data-role="run-result"]').innerText(), /Attempt 1:[\s\S]*Hi there/);
  await assertLabelled(page);
  // A tall window, so the picture shows the mappings and the run's answer together.
  await page.setViewportSize({ width: 1280, height: 1800 });
  await echo.evaluate((el) => el.scrollIntoView({ block: "start" }));
  await screenshot(page, "tools-section");
  await page.setViewportSize({ width: 1280, height: 860 });
  await dialog.getByRole("button", { name: "Close", exact: true }).last().click();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });

  // A chat with the assistant; the conversation sets the variable.
  await page.getByRole("link", { name: "Chat" }).click();
  await page.getByLabel("Assistant").selectOption({ label: "Greeter" });
  await page.getByRole("button", { name: "New chat" }).click();
  await page.waitForURL(/\/chat\/.+/);
  await page.getByRole("button", { name: "Variables (0)" }).click();
  const panel = page.getByRole("form", { name: "Variables" });
  await panel.getByRole("button", { name: "Add" }).click();
  await panel.getByLabel("Name 1").fill("greeting");
  await panel.getByLabel("Value 1").fill("Bonjour");
  await panel.getByRole("button", { name: "Save variables" }).click();
  await panel.getByRole("status").getByText("Saved.").waitFor();
  await page.getByRole("button", { name: "Variables (1)" }).waitFor();
  await assertLabelled(page);

  await page.getByLabel("Message").fill("Greet me.");
  await page.getByRole("button", { name: "Send" }).click();
  await callStatus(page, "echo", "pending");
  await toolCall(page, "echo").getByRole("button", { name: "Approve" }).click();
  await callStatus(page, "echo", "done");
  assert.match(await toolCall(page, "echo").locator('[data-role="result"]').innerText(), /Bonjour/);
  await page.locator("article.message.assistant .markdown").last().getByText("Greeted.").waitFor();
  await screenshot(page, "chat-variables");
});
