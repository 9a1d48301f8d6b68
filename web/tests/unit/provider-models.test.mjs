import { test } from "node:test";
import assert from "node:assert/strict";

import {
  modelOptions,
  modelSummary,
  originOf,
  providerFromFound,
  settingsOf,
  temperatureFrom,
} from "../../js/providers/models.js";

test("a summary names a few models and counts the rest", () => {
  assert.equal(modelSummary([]), "");
  assert.equal(modelSummary(["a", "b"]), "a, b");
  assert.equal(modelSummary(["a", "b", "c", "d", "e"]), "a, b, c, +2");
  assert.equal(modelSummary(["a", "b", "c"], 1), "a, +2");
});

test("a found server becomes a provider with a free name and its first model", () => {
  const found = { name: "Ollama", port: 11434, baseUrl: "http://127.0.0.1:11434/v1", models: ["llama3.2", "qwen3"] };
  assert.deepEqual(providerFromFound(found, [], "x"), {
    name: "Ollama",
    kind: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    defaultModel: "llama3.2",
  });
  assert.equal(providerFromFound(found, ["Ollama", "Ollama 2"], "x").name, "Ollama 3");
  const unnamed = { port: 9999, baseUrl: "http://127.0.0.1:9999/v1", models: ["m"] };
  assert.equal(providerFromFound(unnamed, [], "the server on port 9999").name, "the server on port 9999");
});

test("the picker keeps the chat's choice even when the provider no longer lists it", () => {
  assert.deepEqual(modelOptions(["a", "b"], null), ["a", "b"]);
  assert.deepEqual(modelOptions(["a", "b"], "b"), ["a", "b"]);
  assert.deepEqual(modelOptions(["a", "b"], "gone"), ["gone", "a", "b"]);
  assert.deepEqual(modelOptions(undefined, "x"), ["x"]);
});

test("settings are read from the conversation, absent as null", () => {
  assert.deepEqual(settingsOf({ id: "c" }), { model: null, systemPrompt: null, temperature: null });
  assert.deepEqual(settingsOf({ model: "m", systemPrompt: "p", temperature: 0 }), {
    model: "m",
    systemPrompt: "p",
    temperature: 0,
  });
});

test("a temperature is a number from 0 to 2, or empty", () => {
  assert.deepEqual(temperatureFrom(""), { value: null });
  assert.deepEqual(temperatureFrom(" 0.7 "), { value: 0.7 });
  assert.deepEqual(temperatureFrom("0"), { value: 0 });
  assert.deepEqual(temperatureFrom("2"), { value: 2 });
  for (const bad of ["2.1", "-0.1", "hot", "NaN", "Infinity"]) {
    assert.deepEqual(temperatureFrom(bad), { error: true }, bad);
  }
});

test("an origin is the scheme, host and port, without path or credentials", () => {
  assert.equal(originOf("https://me:pw@api.example.com/v1?key=x"), "https://api.example.com");
  assert.equal(originOf("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434");
  assert.equal(originOf("not a url"), "not a url");
});
