// An editor's session with `clawdcode acp`, driven by the official
// TypeScript SDK (@agentclientprotocol/sdk) as the client: what Zed and
// the other editors use. Run by TestTypeScriptClient, which sets:
//   ACP_SDK         the SDK package's directory (make acp-sdk installs it)
//   CLAWDCODE_BIN   the binary; its environment is this process's
//   PROJECT         the session's directory
//   PRINT_SESSION   a session made by -p, to load
//   TRANSCRIPT      where the JSON-RPC lines both ways are written
// It prints one JSON object of what it saw; a failed check exits 1.
import { spawn } from "node:child_process";
import { existsSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const acp = await import(pathToFileURL(join(process.env.ACP_SDK, "dist/v1/stable/acp.js")).href);
const project = process.env.PROJECT;
const transcript = process.env.TRANSCRIPT;

function check(ok, what) {
  if (!ok) {
    console.error("check failed: " + what);
    process.exit(1);
  }
}

// The lines both ways, in the order they pass, and in the transcript.
const wire = [];
function tap(dir) {
  let rest = "";
  return (chunk) => {
    rest += Buffer.from(chunk).toString("utf8");
    let i;
    while ((i = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, i);
      rest = rest.slice(i + 1);
      wire.push({ dir, line });
      appendFileSync(transcript, `${dir} ${line}\n`);
    }
  };
}

const agent = spawn(process.env.CLAWDCODE_BIN, ["acp"], { cwd: project, stdio: ["pipe", "pipe", "inherit"] });
const toAgent = tap("->");
const fromAgent = tap("<-");
const input = Writable.toWeb(agent.stdin);
const writer = input.getWriter();
const output = new WritableStream({
  write(chunk) {
    toAgent(chunk);
    return writer.write(chunk);
  },
  close() {
    return writer.close();
  },
});
const source = Readable.toWeb(agent.stdout).pipeThrough(
  new TransformStream({
    transform(chunk, c) {
      fromAgent(chunk);
      c.enqueue(chunk);
    },
  }),
);

const updates = [];
const waiters = [];
let answers = [];
const asked = [];

const client = acp
  .client({ name: "clawdcode-ts-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params);
    for (const w of [...waiters]) {
      if (w.ok(params)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(params);
      }
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    asked.push(params);
    const answer = answers.shift();
    if (answer === "cancel") {
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: answer } };
  });

function waitFor(ok) {
  const seen = updates.find(ok);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => waiters.push({ ok, resolve }));
}

const kindsOf = (sid, from) => updates.slice(from).filter((u) => u.sessionId === sid).map((u) => u.update.sessionUpdate);
const textOf = (sid, from, kind) =>
  updates
    .slice(from)
    .filter((u) => u.sessionId === sid && u.update.sessionUpdate === kind)
    .map((u) => u.update.content.text)
    .join("");

const seen = {};
await client.connectWith(acp.ndJsonStream(output, source), async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "clawdcode-ts-test", version: "1" },
  });
  check(init.protocolVersion === 1 && init.agentCapabilities.loadSession === true, "initialize: " + JSON.stringify(init));
  check(init.agentCapabilities.promptCapabilities.image && init.agentCapabilities.promptCapabilities.embeddedContext, "prompt capabilities");

  const created = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  const sid = created.sessionId;
  seen.sessionId = sid;
  check(created.modes.currentModeId === "default", "modes: " + JSON.stringify(created.modes));
  await waitFor((u) => u.sessionId === sid && u.update.sessionUpdate === "available_commands_update");

  const prompt = (text) => ctx.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text }] });

  // 1. A prompt that streams chunks before it ends.
  let from = updates.length;
  let mark = wire.length;
  let res = await prompt("hello");
  check(res.stopReason === "end_turn", "hello: " + JSON.stringify(res));
  const chunks = kindsOf(sid, from).filter((k) => k === "agent_message_chunk").length;
  const lines = wire.slice(mark).filter((l) => l.dir === "<-");
  const lastChunk = lines.findLastIndex((l) => l.line.includes('"agent_message_chunk"'));
  const response = lines.findIndex((l) => l.line.includes('"stopReason"'));
  check(chunks > 2 && lastChunk >= 0 && lastChunk < response, `chunks ${chunks}, last at ${lastChunk}, response at ${response}`);
  seen.hello = textOf(sid, from, "agent_message_chunk");
  seen.thought = textOf(sid, from, "agent_thought_chunk");
  seen.usage = updates.slice(from).some((u) => u.update.sessionUpdate === "usage_update" && u.update.size > 0);

  // 2. A tool call that asks and is allowed once.
  answers = ["allow-once"];
  from = updates.length;
  res = await prompt("write allowed.txt");
  check(res.stopReason === "end_turn" && asked.length === 1, "allowed: " + JSON.stringify(res));
  check(asked[0].options.map((o) => o.kind).join(",") === "allow_once,allow_always,reject_once", "options " + JSON.stringify(asked[0].options));
  const call = updates.slice(from).find((u) => u.update.sessionUpdate === "tool_call");
  check(call && call.update.kind === "edit" && call.update.content[0].type === "diff", "the Write's call: " + JSON.stringify(call));
  seen.allowedWritten = existsSync(join(project, "allowed.txt"));

  // 3. One that is rejected.
  answers = ["reject"];
  from = updates.length;
  res = await prompt("write rejected.txt");
  check(res.stopReason === "end_turn" && asked.length === 2, "rejected: " + JSON.stringify(res));
  seen.rejectedWritten = existsSync(join(project, "rejected.txt"));
  seen.rejectedShownFailed = updates
    .slice(from)
    .some((u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "failed");

  // 4. A cancel in the middle of a stream, then a prompt that works.
  from = updates.length;
  const slow = prompt("tell me a long story");
  await waitFor((u) => updates.indexOf(u) >= from && u.sessionId === sid && u.update.sessionUpdate === "agent_message_chunk");
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: sid });
  res = await slow;
  check(res.stopReason === "cancelled", "cancel: " + JSON.stringify(res));
  res = await prompt("are you still there?");
  check(res.stopReason === "end_turn", "after cancel: " + JSON.stringify(res));
  seen.afterCancel = textOf(sid, from, "agent_message_chunk");

  // 5. session/load of a session made by -p replays its messages.
  const psid = process.env.PRINT_SESSION;
  from = updates.length;
  await ctx.request(acp.methods.agent.session.load, { sessionId: psid, cwd: project, mcpServers: [] });
  seen.replayedUser = textOf(psid, from, "user_message_chunk");
  seen.replayedAgent = textOf(psid, from, "agent_message_chunk");

  // 6. set_mode plan refuses a Write; the plan the model hands over
  // (ExitPlanMode) is put to the editor, and declined.
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "plan" });
  answers = ["keep-planning"];
  from = updates.length;
  res = await prompt("write planned.txt");
  check(res.stopReason === "end_turn", "plan: " + JSON.stringify(res));
  seen.plannedWritten = existsSync(join(project, "planned.txt"));
  seen.planQuestion = asked.length === 3 && asked[2].toolCall.kind === "switch_mode";
});
agent.stdin.end();
await new Promise((resolve) => agent.on("exit", resolve));
seen.exitCode = agent.exitCode;
seen.stdoutLinesAllJSONRPC = wire.filter((l) => l.dir === "<-").every((l) => {
  try {
    return JSON.parse(l.line).jsonrpc === "2.0";
  } catch {
    return false;
  }
});
console.log(JSON.stringify(seen));
