/**
 * protocol.ts checked against the server's wire contract, protocol/handrail.schema.json (generated from
 * src/handrail/wire by `python -m handrail.wire.schema`): every name it uses is one the server knows, and every
 * field its interfaces declare is one the schema has. `Record<keyof T, true>` makes the compiler hold each
 * field list below to the interface, so a field added to protocol.ts must be added here, then to the schema.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as protocol from "../../src/logic/protocol";

interface Definition {
  properties?: Record<string, unknown>;
}

interface Schema {
  commands: Record<string, unknown>;
  methods: Record<string, { direction: string; kind: string }>;
  chatEvents: Record<string, unknown>;
  modes: string[];
  $defs: Record<string, Definition>;
}

// out/test/unit/ → the repository root
const SCHEMA = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "..", "protocol", "handrail.schema.json"), "utf8")) as Schema;

/** What the server has and protocol.ts does not use yet (issue 24 found them missing). The test fails once the
 * client adds one, so the list only shrinks. */
const NOT_YET_IN_CLIENT = {
  // a prompt's command typed in the chat runs it through handrail.ask (the server reads its arguments);
  // handrail.startAsk is for clients whose requests time out (Eglot, Helix): the chat waits on handrail.ask
  commands: ["handrail.runMcpPrompt", "handrail.startAsk"],
  modes: [] as string[],
  // VS Code syncs every open document, so it has nothing to share on request
  methods: ["handrail/shareDocument"],
  capabilities: ["shareDocument"],
};

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}

function fields(definition: string): string[] {
  const found = SCHEMA.$defs[definition];
  assert.ok(found, `the schema defines ${definition}`);
  return Object.keys(found.properties ?? {});
}

function assertFieldsKnown(name: string, definition: string, declared: Record<string, true>): void {
  const unknown = Object.keys(declared).filter((field) => !fields(definition).includes(field));
  assert.deepEqual(unknown, [], `${name} declares fields the server's ${definition} does not have`);
}

test("the method names are the server's", () => {
  const client = [protocol.CHAT, protocol.PERMISSION, protocol.ASK_USER, protocol.SAVE_DOCUMENT, protocol.DIAGNOSTICS,
    protocol.DID_CHANGE_TRUST, protocol.MCP_APPROVAL, protocol.ELICIT];
  const expected = Object.keys(SCHEMA.methods).filter((m) => !NOT_YET_IN_CLIENT.methods.includes(m));
  assert.deepEqual(sorted(client), sorted(expected));
});

test("the commands are the server's (less the ones not used yet)", () => {
  const expected = Object.keys(SCHEMA.commands).filter((c) => !NOT_YET_IN_CLIENT.commands.includes(c));
  assert.deepEqual(sorted(Object.values(protocol.Commands)), sorted(expected));
  for (const missing of NOT_YET_IN_CLIENT.commands) {
    assert.ok(!Object.values<string>(protocol.Commands).includes(missing), `${missing} is in protocol.ts now: drop it from NOT_YET_IN_CLIENT`);
  }
});

test("the modes are the server's (less the ones not offered yet)", () => {
  const expected = SCHEMA.modes.filter((m) => !NOT_YET_IN_CLIENT.modes.includes(m));
  assert.deepEqual(sorted(protocol.MODES), sorted(expected));
  for (const missing of NOT_YET_IN_CLIENT.modes) {
    assert.ok(!(protocol.MODES as readonly string[]).includes(missing), `${missing} is in protocol.ts now: drop it from NOT_YET_IN_CLIENT`);
  }
});

test("the capabilities declared are the server's", () => {
  const expected = fields("HandrailCapabilities").filter((c) => !NOT_YET_IN_CLIENT.capabilities.includes(c));
  assert.deepEqual(sorted(Object.keys(protocol.EXPERIMENTAL_CAPABILITIES.handrail)), sorted(expected));
});

test("the chat event kinds are the server's", () => {
  const kinds: Record<protocol.ChatEvent["kind"], true> = {
    turnStart: true, text: true, thinking: true, retry: true, toolStart: true, toolProgress: true, toolResult: true,
    permission: true, turnEnd: true, todos: true, background: true, mode: true,
  };
  assert.deepEqual(sorted(Object.keys(kinds)), sorted(Object.keys(SCHEMA.chatEvents)));
});

test("every field protocol.ts declares is in the schema", () => {
  const permission: Record<keyof protocol.PermissionParams, true> = {
    sessionId: true, toolUseId: true, tool: true, input: true, summary: true, reason: true, diff: true,
    suggestions: true, agent: true, command: true, description: true,
  };
  assertFieldsKnown("PermissionParams", "PermissionParams", permission);
  const answer: Record<keyof protocol.PermissionResult, true> = { decision: true, rules: true, rule: true, destination: true, feedback: true };
  assertFieldsKnown("PermissionResult", "PermissionResult", answer);
  const askUser: Record<keyof protocol.AskUserParams, true> = { sessionId: true, toolUseId: true, questions: true };
  assertFieldsKnown("AskUserParams", "AskUserParams", askUser);
  const question: Record<keyof protocol.AskQuestion, true> = { question: true, header: true, options: true, multiSelect: true };
  assertFieldsKnown("AskQuestion", "QuestionParams", question);
  const option: Record<keyof protocol.AskOption, true> = { label: true, description: true };
  assertFieldsKnown("AskOption", "QuestionOption", option);
  const askUserAnswer: Record<keyof protocol.AskUserResult, true> = { answers: true };
  assertFieldsKnown("AskUserResult", "AskUserResult", askUserAnswer);
  const ask: Record<keyof protocol.AskResult, true> = { sessionId: true, stopReason: true, text: true, usage: true, error: true };
  assertFieldsKnown("AskResult", "AskResult", ask);
  const usage: Record<keyof protocol.Usage, true> = {
    inputTokens: true, outputTokens: true, cacheReadTokens: true, cacheWriteTokens: true, costUsd: true, session: true,
    contextTokens: true, contextWindow: true,
  };
  assertFieldsKnown("Usage", "Usage", usage);
  const turnError: Record<keyof protocol.TurnError, true> = { kind: true, message: true };
  assertFieldsKnown("TurnError", "TurnError", turnError);
  const task: Record<keyof protocol.BackgroundTask, true> = { id: true, kind: true, description: true, status: true };
  assertFieldsKnown("BackgroundTask", "BackgroundTask", task);
  const todo: Record<keyof protocol.Todo, true> = { content: true, status: true, activeForm: true };
  assertFieldsKnown("Todo", "TodoItem", todo);
  const report: Record<keyof protocol.PermissionsReport, true> = { mode: true, inactive: true, problems: true };
  assertFieldsKnown("PermissionsReport", "PermissionsReport", report);
  const inactive: Record<keyof protocol.InactiveItem, true> = {
    rule: true, setting: true, behavior: true, source: true, reason: true, value: true, digest: true,
  };
  const inactiveFields = [...fields("InactiveRule"), ...fields("InactiveSetting")];
  assert.deepEqual(Object.keys(inactive).filter((f) => !inactiveFields.includes(f)), []);
  const mcp: Record<keyof protocol.McpServerStatus, true> = {
    name: true, source: true, state: true, tools: true, error: true, stderrTail: true, toolsChanged: true, restarts: true,
    remote: true, signInAt: true, approval: true,
  };
  assertFieldsKnown("McpServerStatus", "McpServerStatus", mcp);
  const restart: Record<keyof protocol.McpRestartResult, true> = { restarted: true, name: true, reason: true };
  assertFieldsKnown("McpRestartResult", "McpRestartResult", restart);
  const diagnostics: Record<keyof protocol.DiagnosticsParams, true> = { uri: true, version: true, diagnostics: true };
  assertFieldsKnown("DiagnosticsParams", "DiagnosticsParams", diagnostics);
  const approve: Record<keyof protocol.McpApproveResult, true> = { approved: true, name: true, reason: true };
  assertFieldsKnown("McpApproveResult", "McpApproveResult", approve);
  const signIn: Record<keyof protocol.McpSignInResult, true> = { signingIn: true, name: true, reason: true };
  assertFieldsKnown("McpSignInResult", "McpSignInResult", signIn);
  const signOut: Record<keyof protocol.McpSignOutResult, true> = { signedOut: true, name: true, detail: true, reason: true };
  assertFieldsKnown("McpSignOutResult", "McpSignOutResult", signOut);
  const prompt: Record<keyof protocol.McpPrompt, true> = {
    server: true, name: true, title: true, description: true, command: true, usage: true, arguments: true,
  };
  assertFieldsKnown("McpPrompt", "McpPrompt", prompt);
  const argument: Record<keyof protocol.McpPromptArgument, true> = { name: true, description: true, required: true };
  assertFieldsKnown("McpPromptArgument", "McpPromptArgument", argument);
  const mentionable: Record<keyof protocol.McpMentionable, true> = {
    server: true, uri: true, uriTemplate: true, name: true, mention: true, description: true, mimeType: true,
  };
  assertFieldsKnown("McpMentionable", "McpMentionable", mentionable);
  const elicit: Record<keyof protocol.ElicitParams, true> = { server: true, message: true, requestedSchema: true };
  assertFieldsKnown("ElicitParams", "ElicitParams", elicit);
  const elicitAnswer: Record<keyof protocol.ElicitResult, true> = { action: true, content: true };
  assertFieldsKnown("ElicitResult", "ElicitResult", elicitAnswer);
  const approval: Record<keyof protocol.McpApprovalParams, true> = { sessionId: true, server: true, question: true };
  assertFieldsKnown("McpApprovalParams", "McpApprovalParams", approval);
  const approved: Record<keyof protocol.McpApprovalResult, true> = { approved: true };
  assertFieldsKnown("McpApprovalResult", "McpApprovalResult", approved);
  const diagnostic: Record<keyof protocol.LspDiagnostic, true> = { range: true, severity: true, code: true, source: true, message: true };
  assertFieldsKnown("LspDiagnostic", "Diagnostic", diagnostic);
});
